import { randomUUID } from 'node:crypto'
import type { OneTimeCodeStoreFixture } from '@portcullis/conformance/codes'
import { PostgresAccountStore, type PostgresClient, PostgresOneTimeCodeStore } from '../../src/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

/** Whether the mail outbox table (migration 14) is in the schema this client sees. */
export async function hasMailOutbox(client: Pick<PostgresClient, 'pool'>): Promise<boolean> {
  const { rows } = await client.pool.query<{ found: boolean }>(
    "select to_regclass('portcullis_mail_outbox') is not null as found",
  )
  return rows[0]?.found === true
}

/**
 * The code store suite's fixture over two pools (two app instances): accounts made and deleted through
 * `PostgresAccountStore`, and the outbox read back from its table when the schema has one.
 */
export function postgresCodeFixture(
  client: PostgresClient,
  other: PostgresClient,
  outbox: boolean,
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
    ...(outbox
      ? {
          async storedOutboxIds(ids: readonly string[]) {
            const { rows } = await client.pool.query<{ id: string }>(
              'select id::text as id from portcullis_mail_outbox where id::text = any($1)',
              [[...ids]],
            )
            return rows.map((row) => row.id)
          },
        }
      : {}),
  })
}
