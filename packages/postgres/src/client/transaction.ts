import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { asStoreError, isTransient } from './database-error.js'

/** The handle a transaction body works with. */
export type Transaction = Parameters<Parameters<NodePgDatabase['transaction']>[0]>[0]

const ATTEMPTS = 3

/**
 * Runs `work` as ONE transaction (READ COMMITTED, row locks taken explicitly). A deadlock or
 * serialization failure rolled everything back, so the body simply runs again, up to three times.
 * Deliberate Portcullis errors roll back and pass through; driver failures become `postgres.unavailable`.
 */
export async function inTransaction<T>(
  db: NodePgDatabase,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction(work)
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
