import { ConfigurationError } from '../errors/portcullis-error.js'
import type { SecurityLogEntry } from './entry.js'
import type { MemorySecurityLog } from './memory.js'
import { checkAppend } from './requests.js'

/**
 * Security-log entries that a store writes in the same transaction as its change, and only when the
 * change happens: the change and its record commit together or not at all. Build each entry with
 * `SecurityLogWriter.entryFor(event)` (or `SecurityLogEntries.entryOf`) before the call.
 */
export interface WithSecurityLog {
  readonly securityLog?: readonly SecurityLogEntry[] | undefined
}

/**
 * A store that can take `securityLog` entries with its changes. Postgres stores write them into the
 * security log's table of the same database; a memory store does so when it was given the
 * `MemorySecurityLog` to write into. A store without the flag, or with it false, must not be given any.
 */
export interface SecurityLogInTransaction {
  readonly securityLogInTransaction: boolean
}

/** Whether `store` writes `securityLog` entries in its change's transaction. */
export function writesSecurityLogInTransaction(store: unknown): boolean {
  return (
    typeof store === 'object' &&
    store !== null &&
    (store as Partial<SecurityLogInTransaction>).securityLogInTransaction === true
  )
}

/** A change's `securityLog` entries, validated and copied (none when absent). */
export function validateSecurityLogEntries(value: unknown): readonly SecurityLogEntry[] {
  if (value === undefined) return []
  return checkAppend(value as readonly SecurityLogEntry[])
}

/**
 * For memory stores: checks a change's entries and returns the function that writes them into `log` in
 * the change's synchronous step. Entries without a log are refused (`security_log.not_configured`): a
 * record must never be dropped silently.
 */
export function stageSecurityLog(
  log: MemorySecurityLog | undefined,
  entries: readonly SecurityLogEntry[],
  store: string,
): () => void {
  if (entries.length === 0) return () => {}
  if (log === undefined) {
    throw new ConfigurationError(
      'security_log.not_configured',
      `this ${store} has no security log: pass { securityLog: MemorySecurityLog } to write entries with changes`,
    )
  }
  return log.prepareAppend(entries)
}
