import type { PostgresClient } from '@portcullis/postgres'

// Read-only figures for `protector status` and `drop-retained`: how many envelopes each key version still
// seals, across every provider registration, the live OAuth transactions (which no store port lists) and
// the TOTP secrets (sealed with the same protector).
// Re-encryption itself goes through the stores (see reencrypt-vault.ts and reencrypt-totp.ts).

/** Envelopes per key version: token vault, revocation retries, live OAuth transactions, TOTP secrets. */
export async function envelopeCounts(client: Pick<PostgresClient, 'pool'>): Promise<Map<string, number>> {
  const version = (column: string) => `substring(${column} from '^pe1\\.(.*)\\.[A-Za-z0-9_-]+$')`
  const { rows } = await client.pool.query<{ version: string; count: string }>(
    `select version, count(*)::text as count from (
       select ${version('envelope')} as version from portcullis_oauth_token_vault where envelope is not null
       union all select ${version('envelope')} from portcullis_oauth_revocation_retries
       union all select ${version('pkce_verifier_envelope')} from portcullis_oauth_transactions where expires_at > now()
       union all select ${version('nonce_envelope')} from portcullis_oauth_transactions
         where nonce_envelope is not null and expires_at > now()
       union all select ${version('sealed_secret')} from portcullis_totp_enrollments
     ) as envelopes group by version order by version`,
  )
  return new Map(rows.map((row) => [row.version ?? '(unreadable)', Number(row.count)]))
}
