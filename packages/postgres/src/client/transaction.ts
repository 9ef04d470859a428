import { isPortcullisError } from '@portcullis/core'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import { asStoreError, isTransient, sqlStateOf } from './database-error.js'

/** The handle a transaction body works with. */
export type Transaction = Parameters<Parameters<NodePgDatabase['transaction']>[0]>[0]

const ATTEMPTS = 3

/**
 * Whether a failure leaves the connection unfit for reuse: the socket broke ('error' event, or a
 * driver error without SQLSTATE), the server ended the session (class 08 connection exception,
 * 57P01-57P05 shutdown or termination), or the server itself failed (classes 58 and XX). A statement
 * error such as a constraint violation or a cancelled statement leaves a usable connection.
 */
function breaksConnection(error: unknown): boolean {
  if (isPortcullisError(error)) return false
  const state = sqlStateOf(error)
  if (state === undefined) return true
  return state.startsWith('08') || state.startsWith('58') || state.startsWith('XX') || state.startsWith('57P')
}

/**
 * Borrows one pooled connection for `work`. For as long as it is borrowed the connection has an
 * 'error' listener, so a connection that dies underneath (backend terminated, failover, network cut)
 * fails the operation instead of ending the process; a connection that failed is destroyed, never
 * returned to the pool (`discard()` marks it so from inside `work`). Errors pass through unchanged (callers map them, see `asStoreError`); only a
 * failure to borrow a connection at all is mapped here, to `postgres.unavailable`.
 */
export async function withConnection<T>(
  pool: pg.Pool,
  work: (connection: pg.PoolClient, discard: () => void) => Promise<T>,
): Promise<T> {
  let broken: Error | undefined
  const onError = (error: Error) => {
    broken ??= error
  }
  // The listener is attached inside the pool's callback, in the same tick the pool hands the connection
  // over: the pool takes its own idle listener off first, and one socket read can hold both the
  // previous user's last answer and the server's termination notice (pg_terminate_backend), which then
  // reaches a connection nobody listens on. Awaiting the promise form would attach it a tick late.
  const connection = await new Promise<pg.PoolClient>((resolve, reject) => {
    pool.connect((error, client) => {
      if (error !== undefined && error !== null) {
        reject(asStoreError(error))
        return
      }
      const borrowed = client as pg.PoolClient
      borrowed.on('error', onError)
      resolve(borrowed)
    })
  })
  try {
    return await work(connection, () => {
      broken ??= new Error('connection discarded')
    })
  } catch (error) {
    if (broken === undefined && breaksConnection(error)) {
      broken = error instanceof Error ? error : new Error('connection failed')
    }
    throw error
  } finally {
    connection.removeListener('error', onError)
    // The pool puts its own idle listener back before anything else can happen; a broken connection
    // is closed instead of being handed to the next caller.
    connection.release(broken)
  }
}

/**
 * Runs `work` as ONE transaction (READ COMMITTED, row locks taken explicitly) on a borrowed
 * connection (see `withConnection`). A deadlock or serialization failure rolled everything back, so
 * the body simply runs again, up to three times. Deliberate Portcullis errors roll back and pass
 * through; driver failures become `postgres.unavailable`.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await withConnection(pool, (connection) => drizzle({ client: connection }).transaction(work))
    } catch (error) {
      if (attempt < ATTEMPTS && isTransient(error)) continue
      throw asStoreError(error)
    }
  }
}

/** Runs a single statement (its own transaction); driver failures become `postgres.unavailable`. */
export async function inStatement<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw asStoreError(error)
  }
}
