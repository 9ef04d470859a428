import {
  encodeSecurityLogCursor,
  newerFirst,
  type SecurityLogEntry,
  type SecurityLogPosition,
} from './entry.js'
import type {
  AccountLogRequest,
  SecurityLog,
  SecurityLogPage,
  SweepLogRequest,
  TypeLogRequest,
} from './port.js'
import { checkAccountRequest, checkAppend, checkSweepRequest, checkTypeRequest } from './requests.js'

function page(entries: readonly SecurityLogEntry[], limit: number): SecurityLogPage {
  const shown = entries.slice(0, limit)
  const last = shown.at(-1)
  return {
    entries: shown,
    nextCursor: entries.length > limit && last !== undefined ? encodeSecurityLogCursor(last) : null,
  }
}

/** An entry's identity: its instant and id (the same entry appended twice is kept once). */
const keyOf = (entry: SecurityLogPosition) => `${entry.at.getTime()}.${entry.id}`

const after = (position: SecurityLogPosition | undefined) => (entry: SecurityLogEntry) =>
  position === undefined || newerFirst(position, entry) < 0

/**
 * The security log in this process's memory, for tests and single-instance development: kept newest
 * first, lost on restart. Every operation is synchronous underneath, so one `append` is all or nothing.
 */
export class MemorySecurityLog implements SecurityLog {
  /** Newest first. */
  #entries: SecurityLogEntry[] = []
  readonly #ids = new Set<string>()

  async append(entries: readonly SecurityLogEntry[]): Promise<void> {
    this.prepareAppend(entries)()
  }

  /**
   * Checks a batch and returns the function that stores it, synchronously: a memory store calls it in
   * the same step as its change (`WithSecurityLog`), so the change and its entries land together.
   */
  prepareAppend(entries: readonly SecurityLogEntry[]): () => void {
    const checked = checkAppend(entries)
    return () => this.#store(checked)
  }

  #store(checked: readonly SecurityLogEntry[]): void {
    const batch = new Set<string>()
    const fresh = checked.filter((entry) => {
      const key = keyOf(entry)
      if (this.#ids.has(key) || batch.has(key)) return false
      batch.add(key)
      return true
    })
    if (fresh.length === 0) return
    for (const key of batch) this.#ids.add(key)
    this.#entries = [...this.#entries, ...fresh].sort(newerFirst)
  }

  async listForAccount(request: AccountLogRequest): Promise<SecurityLogPage> {
    const { accountId, limit, after: position } = checkAccountRequest(request)
    const matching = this.#entries.filter((entry) => entry.accountId === accountId).filter(after(position))
    return page(matching.slice(0, limit + 1), limit)
  }

  async listByType(request: TypeLogRequest): Promise<SecurityLogPage> {
    const { type, since, until, limit, after: position } = checkTypeRequest(request)
    const matching = this.#entries
      .filter((entry) => entry.type === type)
      .filter((entry) => entry.at.getTime() >= since.getTime() && entry.at.getTime() < until.getTime())
      .filter(after(position))
    return page(matching.slice(0, limit + 1), limit)
  }

  async sweep(request: SweepLogRequest): Promise<number> {
    const { before, limit } = checkSweepRequest(request)
    const doomed = new Set(
      this.#entries
        .filter((entry) => entry.at.getTime() < before.getTime())
        .slice(-limit)
        .map(keyOf),
    )
    if (doomed.size === 0) return 0
    this.#entries = this.#entries.filter((entry) => !doomed.has(keyOf(entry)))
    for (const id of doomed) this.#ids.delete(id)
    return doomed.size
  }

  /** Entries held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.length
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemorySecurityLog { size: ${this.#entries.length} }`
  }
}
