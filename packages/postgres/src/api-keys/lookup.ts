import { eq, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { sessionIsShared } from '../client/database-error.js'
import { inStatement } from '../client/transaction.js'
import { type ApiKeyRow, apiKeysTable } from './tables.js'

/** Name of the request-path statement when named prepared statements are on. */
export const API_KEY_LOOKUP_STATEMENT = 'portcullis_api_keys_get'

function prepare(db: NodePgDatabase, named: boolean) {
  return db
    .select()
    .from(apiKeysTable)
    .where(eq(apiKeysTable.keyId, sql.placeholder('keyId')))
    .prepare(named ? API_KEY_LOOKUP_STATEMENT : '')
}

type Lookup = ReturnType<typeof prepare>
const named = new WeakMap<NodePgDatabase, Lookup>()
const unnamed = new WeakMap<NodePgDatabase, Lookup>()
/** Databases whose session turned out to be shared between connections (a pooler in transaction mode). */
const sharedSessions = new WeakSet<NodePgDatabase>()

function lookupFor(db: NodePgDatabase, preparedStatements: boolean): Lookup {
  const useName = preparedStatements && !sharedSessions.has(db)
  const cache = useName ? named : unnamed
  let found = cache.get(db)
  if (found === undefined) {
    found = prepare(db, useName)
    cache.set(db, found)
  }
  return found
}

/**
 * The one read on the request path: a primary-key SELECT, parsed once per connection when named.
 * `42P05` or `26000` (see `sessionIsShared`) means connections share
 * one session, as behind a pooler in transaction mode: that database switches to the unnamed statement.
 */
export function findApiKeyRow(
  db: NodePgDatabase,
  preparedStatements: boolean,
  keyId: string,
): Promise<ApiKeyRow | undefined> {
  return inStatement(async () => {
    try {
      const [row] = await lookupFor(db, preparedStatements).execute({ keyId })
      return row
    } catch (error) {
      if (!sessionIsShared(error)) throw error
      sharedSessions.add(db)
      const [row] = await lookupFor(db, false).execute({ keyId })
      return row
    }
  })
}
