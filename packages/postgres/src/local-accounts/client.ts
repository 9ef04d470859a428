import { ConfigurationError } from '@portcullis/core'
import { LocalStoreError, LocalStoreErrorCodes } from '@portcullis/core/local-accounts'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import { sessionIsShared, sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import { revocationChannel } from '../revocation/channel.js'

/** What every local-account store takes: the client from `createPostgresClient` (migrated). */
export type LocalStoreClient = Pick<PostgresClient, 'db' | 'pool' | 'preparedStatements' | 'schema'>

export interface LocalStoreContext {
  readonly db: NodePgDatabase
  /** Transactions borrow their connection from the pool directly (see `withConnection`). */
  readonly pool: pg.Pool
  /** Whether the hot-path statements may be named (see `PostgresClientOptions.preparedStatements`). */
  readonly preparedStatements: boolean
  /** Where revocations are announced (`revocationChannel` of the client's schema). */
  readonly channel: string
}

/** Checks the options of a local-account store; a missing or foreign client is a `ConfigurationError`. */
export function storeContext(
  options: { readonly client: LocalStoreClient } | undefined,
  store: string,
): LocalStoreContext {
  const client = options?.client
  if (
    typeof client?.db?.transaction !== 'function' ||
    typeof client.pool?.connect !== 'function' ||
    typeof client.pool.query !== 'function'
  ) {
    throw new ConfigurationError('local.invalid_config', `${store} needs a client from createPostgresClient`)
  }
  return {
    db: client.db,
    pool: client.pool,
    preparedStatements: client.preparedStatements !== false,
    channel: revocationChannel(client.schema),
  }
}

/** A unique violation (SQLSTATE 23505) becomes `local.store_duplicate`; anything else passes through. */
export function duplicateOr(error: unknown, what: string): unknown {
  return sqlStateOf(error) === '23505'
    ? new LocalStoreError(LocalStoreErrorCodes.duplicate, `${what} is already stored`)
    : error
}

/** Runs one prepared statement of the set; driver failures become `postgres.unavailable`. */
export type StatementRunner<Statements> = <T>(
  context: LocalStoreContext,
  run: (prepared: Statements) => Promise<T>,
) => Promise<T>

/**
 * Single statements built once per database and run as named prepared statements (parsed once per
 * connection), or unnamed when the client disables them. `42P05` or `26000` (see `sessionIsShared`) means several connections share one
 * session, as behind a pooler in transaction mode: that database switches to unnamed statements and the call runs again.
 */
export function preparedStatements<Statements>(
  build: (db: NodePgDatabase, name: (label: string) => string) => Statements,
): StatementRunner<Statements> {
  const named = new WeakMap<NodePgDatabase, Statements>()
  const unnamed = new WeakMap<NodePgDatabase, Statements>()
  const shared = new WeakSet<NodePgDatabase>()
  const statements = (context: LocalStoreContext): Statements => {
    const useNames = context.preparedStatements && !shared.has(context.db)
    const cache = useNames ? named : unnamed
    let found = cache.get(context.db)
    if (found === undefined) {
      found = build(context.db, (label) => (useNames ? `portcullis_local_${label}` : ''))
      cache.set(context.db, found)
    }
    return found
  }
  return <T>(context: LocalStoreContext, run: (prepared: Statements) => Promise<T>): Promise<T> =>
    inStatement(async () => {
      try {
        return await run(statements(context))
      } catch (error) {
        if (!sessionIsShared(error)) throw error
        shared.add(context.db)
        return run(statements(context))
      }
    })
}
