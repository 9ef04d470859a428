import { isPortcullisError, PortcullisError, type PortcullisErrorOptions } from '@portcullis/core'

/** Stable codes of the Postgres adapter's own failures. */
export const PostgresErrorCodes = {
  /** The database could not be reached or failed the statement (connection, timeout, lock wait). */
  unavailable: 'postgres.unavailable',
} as const

/**
 * The database failed underneath a store operation. Class `unavailable` (HTTP 503). The message never
 * holds the statement, its parameters or the connection string; the driver error stays in `cause`.
 */
export class PostgresUnavailableError extends PortcullisError {
  /** A short pause before retrying; the HTTP adapter sends it as `Retry-After`. */
  readonly retryAfterSeconds: number

  constructor(message = 'the database is unavailable', options: PortcullisErrorOptions = {}) {
    super(PostgresErrorCodes.unavailable, 'unavailable', message, options)
    this.retryAfterSeconds = RETRY_AFTER_SECONDS
  }
}

/** What a client is told to wait after an outage, a timeout or an exhausted pool. */
const RETRY_AFTER_SECONDS = 2

/** The SQLSTATE of a driver error, looking through wrappers such as drizzle's `DrizzleQueryError`. */
export function sqlStateOf(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * Whether a named prepared statement failed because connections share server sessions, as behind a
 * pooler in transaction mode nobody declared: `42P05` (the name already exists in a session this
 * connection never prepared it in) or `26000` (the session this connection prepared it in now serves
 * someone else). The statement did not run; it can run again unnamed.
 */
export function sessionIsShared(error: unknown): boolean {
  const state = sqlStateOf(error)
  return state === '42P05' || state === '26000'
}

/** Deadlock or serialization failure: the transaction was rolled back and may simply run again. */
export function isTransient(error: unknown): boolean {
  const state = sqlStateOf(error)
  return state === '40P01' || state === '40001'
}

/** Whether a driver error (or one it wraps) is a pooler refusing a startup parameter it does not know. */
function refusedByPooler(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const message = (current as { message?: unknown }).message
    if (typeof message === 'string' && message.includes('unsupported startup parameter')) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** Lets deliberate Portcullis errors through and turns everything else into `postgres.unavailable`. */
export function asStoreError(error: unknown): PortcullisError {
  if (isPortcullisError(error)) return error
  if (refusedByPooler(error)) {
    return new PostgresUnavailableError(
      "the database is unavailable: a connection pooler refused the connection's settings; create the client with pooler: 'transaction'",
      { cause: error },
    )
  }
  return new PostgresUnavailableError('the database is unavailable', { cause: error })
}
