import type { SecurityLogEntry } from './entry.js'

/** A page of entries, newest first, and the cursor of the next page (null when this was the last). */
export interface SecurityLogPage {
  readonly entries: readonly SecurityLogEntry[]
  readonly nextCursor: string | null
}

export interface AccountLogRequest {
  readonly accountId: string
  /** 1-200. */
  readonly limit: number
  /** From the previous page's `nextCursor`; absent for the newest page. */
  readonly cursor?: string | undefined
}

export interface TypeLogRequest {
  readonly type: string
  /** Entries at or after this instant. */
  readonly since: Date
  /** Entries before this instant. */
  readonly until: Date
  /** 1-200. */
  readonly limit: number
  readonly cursor?: string | undefined
}

export interface SweepLogRequest {
  /** Entries older than this instant go. */
  readonly before: Date
  /** At most this many, oldest first (1-10000): one bounded batch. */
  readonly limit: number
}

/**
 * The durable security log. Every read is one indexed query whatever the log's size; a cursor is
 * stable while entries are appended (a later page never repeats or skips an entry the first page
 * could see). Memory: `MemorySecurityLog`; Postgres: `PostgresSecurityLog`; conformance:
 * `assertSecurityLogConformance` from `@portcullis/conformance/security-log`.
 */
export interface SecurityLog {
  /** Stores a batch (0-1000 entries) all or nothing; an entry already stored (the same id at the same instant, as a retried batch sends it) is kept once. */
  append(entries: readonly SecurityLogEntry[]): Promise<void>
  /** One account's entries, newest first. */
  listForAccount(request: AccountLogRequest): Promise<SecurityLogPage>
  /** Every account's entries of one type in a time window, newest first (for operators). */
  listByType(request: TypeLogRequest): Promise<SecurityLogPage>
  /** Deletes one bounded batch of entries older than `before`; answers how many went. */
  sweep(request: SweepLogRequest): Promise<number>
}
