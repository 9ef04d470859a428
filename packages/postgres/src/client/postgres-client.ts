import { ConfigurationError } from '@portcullis/core'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'

export interface PostgresClientOptions {
  /** `postgres://user@host:port/database`. Never logged. */
  readonly connectionString: string
  /** Pool size. Default 10. */
  readonly maxConnections?: number
  /** Per-statement timeout in milliseconds, applied to every connection. Default 10000. */
  readonly statementTimeoutMs?: number
  /**
   * How long an operation waits for a free connection (pool exhausted) or for a new connection to open,
   * in milliseconds, before it fails with `postgres.unavailable` (503 with `Retry-After`). Default 5000.
   */
  readonly connectionTimeoutMs?: number
  /** How long an unused connection stays open, in milliseconds. Default 30000. */
  readonly idleTimeoutMs?: number
  /**
   * Client-side bound on one statement's answer, in milliseconds: covers what the server-side statement
   * timeout cannot see, a connection that stalls on the network. The connection is then discarded and
   * the operation is `postgres.unavailable`. Default `statementTimeoutMs + 2000`.
   */
  readonly queryTimeoutMs?: number
  /**
   * `application_name` reported to the server (`pg_stat_activity.application_name`). Default
   * `portcullis`. Give each instance its own (`portcullis-web-1`) to tell their connections apart.
   */
  readonly applicationName?: string
  /**
   * What sits between this pool and the server. `'transaction'`: a pooler in transaction mode
   * (PgBouncer's `pool_mode = transaction`, the pooled endpoint of a managed Postgres), where a server
   * session serves another client after each transaction. The client then sends no session setting
   * a pooler refuses or drops (`statement_timeout` at connect: set it on the role instead, `ALTER ROLE
   * ... SET statement_timeout`; `queryTimeoutMs` still bounds every statement on the client side) and
   * prepares no named statement. `schema` cannot be combined with it (the pooler would not keep
   * `search_path`). The revocation listener needs a direct connection all the same: give
   * `PostgresRevocationNotices` the server's own `connectionString`. Default `'none'`.
   */
  readonly pooler?: 'none' | 'transaction'
  /**
   * Whether stores may use named prepared statements on their hot paths (token reads and swaps).
   * Default true, false with `pooler: 'transaction'` (true is then refused). A session that turns out
   * to be shared (a pooler in transaction mode nobody declared) is detected and falls back on its own.
   */
  readonly preparedStatements?: boolean
  /**
   * The Postgres schema that holds every Portcullis table (and the migrations bookkeeping table), so
   * they can live apart from the application's own tables. Sets `search_path` to this schema alone on
   * every connection; `migrate` creates it when missing. A lower-case SQL identifier
   * (`[a-z_][a-z0-9_]*`, at most 63 characters). Default: the connection's default search path
   * (usually `public`).
   */
  readonly schema?: string
}

/** The pool and drizzle database every Postgres store of this package is built on. */
export interface PostgresClient {
  readonly pool: pg.Pool
  readonly db: NodePgDatabase
  readonly preparedStatements: boolean
  /** What sits between the pool and the server (`PostgresClientOptions.pooler`). */
  readonly pooler: 'none' | 'transaction'
  /** The schema given in the options, when one was. */
  readonly schema?: string
  /** One round trip; resolves true when the server answers. */
  ping(): Promise<boolean>
  close(): Promise<void>
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

function positiveInteger(value: unknown, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new ConfigurationError('postgres.pool_options', `${name} must be an integer between 1 and ${max}`)
  }
  return value
}

export function createPostgresClient(options: PostgresClientOptions): PostgresClient {
  let url: URL
  try {
    url = new URL(options.connectionString)
  } catch {
    throw new ConfigurationError('postgres.connection_string', 'connectionString is not a valid URL')
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigurationError(
      'postgres.connection_string',
      'connectionString must use the postgres: scheme',
    )
  }
  const schema = options.schema
  if (schema !== undefined && (typeof schema !== 'string' || !SCHEMA_NAME.test(schema))) {
    throw new ConfigurationError(
      'postgres.schema',
      'schema must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters)',
    )
  }
  const pooler = options.pooler ?? 'none'
  if (pooler !== 'none' && pooler !== 'transaction') {
    throw new ConfigurationError('postgres.pool_options', "pooler must be 'none' or 'transaction'")
  }
  if (pooler === 'transaction' && options.preparedStatements === true) {
    throw new ConfigurationError(
      'postgres.pool_options',
      "preparedStatements cannot be true with pooler: 'transaction' (the pooler does not keep them)",
    )
  }
  if (pooler === 'transaction' && schema !== undefined) {
    throw new ConfigurationError(
      'postgres.schema',
      "schema cannot be combined with pooler: 'transaction' (a pooler in transaction mode does not keep search_path); connect directly, or keep the tables in the role's default search path",
    )
  }
  const max = positiveInteger(options.maxConnections, 10, 1_000, 'maxConnections')
  const statementTimeout = positiveInteger(
    options.statementTimeoutMs,
    10_000,
    3_600_000,
    'statementTimeoutMs',
  )
  const connectionTimeout = positiveInteger(
    options.connectionTimeoutMs,
    5_000,
    600_000,
    'connectionTimeoutMs',
  )
  const idleTimeout = positiveInteger(options.idleTimeoutMs, 30_000, 3_600_000, 'idleTimeoutMs')
  const queryTimeout = positiveInteger(
    options.queryTimeoutMs,
    statementTimeout + 2_000,
    3_600_000,
    'queryTimeoutMs',
  )
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    // A pooler in transaction mode refuses unknown startup parameters, and would not keep a SET.
    ...(pooler === 'transaction' ? {} : { statement_timeout: statementTimeout }),
    connectionTimeoutMillis: connectionTimeout,
    idleTimeoutMillis: idleTimeout,
    query_timeout: queryTimeout,
    application_name: options.applicationName ?? 'portcullis',
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  })
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  let closed: Promise<void> | undefined
  return {
    pool,
    db: drizzle({ client: pool }),
    preparedStatements: options.preparedStatements ?? pooler === 'none',
    pooler,
    ...(schema === undefined ? {} : { schema }),
    async ping() {
      const result = await pool.query<{ ok: number }>('select 1 as ok')
      return result.rows[0]?.ok === 1
    },
    close() {
      closed ??= pool.end()
      return closed
    },
  }
}
