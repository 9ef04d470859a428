import { randomUUID } from 'node:crypto'
import type { OneTimeCodeStoreFixture } from '@portcullis/conformance/codes'
import { PostgresAccountStore, type PostgresClient, PostgresOneTimeCodeStore } from '../../src/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

/**
 * The code store suite's fixture over two pools (two app instances): accounts made and deleted through
 * `PostgresAccountStore`, and the outbox (`portcullis_mail_outbox`) read back from its table.
 */
export function postgresCodeFixture(
  client: PostgresClient,
  other: PostgresClient,
): () => OneTimeCodeStoreFixture {
  const accounts = new PostgresAccountStore({ client })
  return () => ({
    store: new PostgresOneTimeCodeStore({ client }),
    peer: new PostgresOneTimeCodeStore({ client: other }),
    async createAccount() {
      const accountId = randomUUID()
      const username = `codes-${accountId}`
      const created = await accounts.createAccount({
        accountId,
        username,
        passwordHash: HASH,
        now: new Date(),
      })
      if (created.outcome !== 'created') throw new Error(`account fixture: ${created.outcome}`)
      return accountId
    },
    async deleteAccount(accountId) {
      const deleted = await accounts.deleteAccount({ accountId, now: new Date() })
      if (deleted.outcome !== 'deleted') throw new Error(`account fixture: ${deleted.outcome}`)
    },
    async storedOutboxIds(ids) {
      const { rows } = await client.pool.query<{ id: string }>(
        'select id::text as id from portcullis_mail_outbox where id::text = any($1)',
        [[...ids]],
      )
      return rows.map((row) => row.id)
    },
  })
}
