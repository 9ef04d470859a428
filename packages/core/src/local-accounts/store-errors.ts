import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of the local-account stores' own failures (bad input is `LocalAccountError`
 * `local.invalid_input` / `local.invalid_username`):
 * - `local.store_duplicate` (conflict): a record with the same key (session digest or handle, refresh
 *   token digest or family id, invite digest, account id) is already stored; nothing was written. Keys
 *   are random, so this is a bug or an attack, never an everyday outcome;
 * - `local.store_full` (unavailable): an in-memory store reached its capacity with live records.
 */
export const LocalStoreErrorCodes = {
  duplicate: 'local.store_duplicate',
  full: 'local.store_full',
} as const

export type LocalStoreErrorCode = (typeof LocalStoreErrorCodes)[keyof typeof LocalStoreErrorCodes]

const CLASS_OF: Readonly<Record<LocalStoreErrorCode, ErrorClass>> = {
  'local.store_duplicate': 'conflict',
  'local.store_full': 'unavailable',
}

/** A deliberate failure of a local-account store. Messages name the kind of record, never a key or value. */
export class LocalStoreError extends PortcullisError {
  declare readonly code: LocalStoreErrorCode

  constructor(code: LocalStoreErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}

export function duplicateRecord(what: string): LocalStoreError {
  return new LocalStoreError(LocalStoreErrorCodes.duplicate, `${what} is already stored`)
}
