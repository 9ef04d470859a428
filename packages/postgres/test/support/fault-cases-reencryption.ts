import { randomUUID } from 'node:crypto'
import { accounts } from '@portcullis/core/oauth'
import { serializeProtectedEnvelope } from '@portcullis/core/protection'
import { PostgresOAuthAccountStore } from '../../src/index.js'
import { NOW } from './accounts.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

/** Cut cases for re-encryption after a protector key rotation: the envelope rewrite. */
export function reencryptionFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, identity, tokens, one } = kit
  return [
    {
      name: 'vault envelope rewrite (re-encryption)',
      table: 'portcullis_oauth_token_vault',
      multiStatement: false,
      async prepare(client) {
        // A registration of its own, so the listing holds exactly this envelope.
        const provider = `reencrypt-${randomUUID()}`
        const options = { provider, clientId: 'client-1', protector }
        const seeding = new PostgresOAuthAccountStore({ client: db.client, ...options })
        await seeding.login({
          identity: identity(provider),
          grant: { scopes: ['openid'] },
          tokens: tokens('reencrypt'),
          provisionUnknown: true,
          now: NOW,
        })
        // Every envelope is stale for a key version nobody uses; its replacement is a fresh seal.
        const [stale] = await seeding.listStaleEnvelopes({ activeKeyVersion: 'fault-next', limit: 2 })
        if (stale?.kind !== 'vault-tokens' || stale.envelope === null) throw new Error('nothing listed')
        const before = serializeProtectedEnvelope(stale.envelope)
        const envelope = await protector.protect(
          await protector.unprotect(stale.envelope, associatedData(provider, stale)),
          associatedData(provider, stale),
        )
        const store = new PostgresOAuthAccountStore({ client, ...options })
        return {
          run: () => store.rewriteEnvelope({ stale, envelope }),
          async check() {
            const row = await one<{ envelope: string; version: string }>(
              'select envelope, version::text from portcullis_oauth_token_vault where provider_account_id = $1',
              [stale.providerAccountId],
            )
            if (row?.version !== String(stale.version)) return partial('the token version moved')
            if (row.envelope === before) return 'untouched'
            return row.envelope === serializeProtectedEnvelope(envelope)
              ? 'written'
              : partial('another envelope')
          },
        }
      },
    },
  ]
}

function associatedData(provider: string, stale: { providerAccountId: string; version: number }) {
  return accounts.vaultAssociatedData(provider, 'client-1', stale.providerAccountId, stale.version)
}
