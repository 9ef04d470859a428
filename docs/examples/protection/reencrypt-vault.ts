// Step 4 of the rotation runbook for provider tokens: once `2031-03` is active everywhere with `2031-01`
// retained, re-seal the token vault and the staged revocation retries, so `2031-01` can be dropped.
// Run it as a job (any instance may keep serving: each rewrite is a compare-and-swap).
import { accounts } from '@portcullis/core/oauth'
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { createPostgresClient, PostgresOAuthAccountStore } from '@portcullis/postgres'

const key = (version: string, variable: string) =>
  loadOAuthTransactionProtectorKey({ version, material: process.env[variable], encoding: 'base64url' })

// The same ring the app runs with: the new key active, the old one retained.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: key('2031-03', 'PORTCULLIS_PROTECTOR_KEY'),
  retainedKeys: [key('2031-01', 'PORTCULLIS_PROTECTOR_PREVIOUS_KEY')],
})

const client = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })

// One store per provider registration the app has: the envelopes are bound to provider and client id.
const registrations = [
  { provider: 'google', clientId: process.env.GOOGLE_CLIENT_ID ?? '' },
  { provider: 'github', clientId: process.env.GITHUB_CLIENT_ID ?? '' },
]
const stores = registrations.map(
  ({ provider, clientId }) => new PostgresOAuthAccountStore({ client, provider, clientId, protector }),
)

/** True when this run found nothing under another key (OAuth transactions expire on their own). */
export async function drainRetainedKeys(): Promise<boolean> {
  // #region re-encrypting-the-token-vault
  const report = await accounts.reencryptOAuthVault({
    stores,
    protector,
    batchSize: 500,
    onProgress: ({ scanned }) => console.error(`re-encrypting: ${scanned} envelope(s)`),
  })
  console.log(`re-sealed ${report.resealed} of ${report.scanned}, ${report.raced} changed concurrently`)
  // Never deleted: ids and key versions only, so you can decide (keep that key, or ask for a re-link).
  for (const entry of report.unreadable) {
    const record = entry.kind === 'vault-tokens' ? entry.providerAccountId : entry.retryId
    console.error(`unreadable: ${entry.provider} ${entry.kind} ${record} (${entry.keyVersion ?? 'damaged'})`)
  }
  // #endregion re-encrypting-the-token-vault
  // A record changed concurrently was re-sealed by the app under its active key; if an instance still
  // had the old key active, the next run picks it up. Drop the old key after a run that finds nothing.
  return report.scanned === 0
}
