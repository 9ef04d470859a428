import { createHash } from 'node:crypto'
import { encodeRevocationNotice, type RevocationNotice } from '@portcullis/core/revocation'
import { type SQL, sql } from 'drizzle-orm'

const BASE = 'portcullis_revocations'
const MAX_IDENTIFIER = 63

/**
 * The `NOTIFY` channel of the Portcullis tables in `schema` (channels are database-wide, so two
 * applications keeping their tables in two schemas of one database never hear each other):
 * `portcullis_revocations`, or `portcullis_revocations_<schema>`, or a digest of a schema name too long
 * for a 63-byte identifier.
 */
export function revocationChannel(schema: string | undefined): string {
  if (schema === undefined) return BASE
  const named = `${BASE}_${schema}`
  if (named.length <= MAX_IDENTIFIER) return named
  return `${BASE}_${createHash('sha256').update(schema).digest('hex').slice(0, 32)}`
}

/** What can run a statement: a drizzle database or transaction. */
export interface StatementExecutor {
  execute(query: SQL): PromiseLike<unknown>
}

/**
 * Sends revocation notices on `channel` from inside a transaction (`tx`): Postgres delivers them when,
 * and only when, the transaction commits, so a notice exists exactly when the change it names committed.
 * One statement however many notices. Call it with the transaction of the change, never after it.
 */
export async function notifyRevocations(
  tx: StatementExecutor,
  channel: string,
  notices: readonly RevocationNotice[],
): Promise<void> {
  if (notices.length === 0) return
  const payloads = JSON.stringify(notices.map(encodeRevocationNotice))
  await tx.execute(
    sql`select pg_notify(${channel}, payload) from json_array_elements_text(${payloads}::json) with ordinality as sent(payload, position) order by position`,
  )
}
