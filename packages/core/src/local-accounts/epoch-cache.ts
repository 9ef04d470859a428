/** How a presented security epoch compares with the account's current one. */
export type EpochVerdict = 'current' | 'stale' | 'unknown-account'

interface Entry {
  readonly epoch: number
  readonly until: number
}

/**
 * A per-instance, bounded cache of accounts' security epochs. An entry is believed for at most
 * `stalenessMs` after it was read from the store; the instance that bumps an epoch updates it at once.
 * `stalenessMs` 0 is strict mode: every check reads the store. A presented epoch newer than the cached
 * one (an epoch bumped on another instance since) always reads the store before deciding.
 */
export class EpochCache {
  readonly #entries = new Map<string, Entry>()
  readonly #loading = new Map<string, Promise<number | null>>()
  readonly #load: (accountId: string) => Promise<number | null>
  readonly #stalenessMs: number
  readonly #maxEntries: number
  readonly #clock: () => number

  constructor(
    load: (accountId: string) => Promise<number | null>,
    stalenessMs: number,
    maxEntries: number,
    clock: () => number,
  ) {
    this.#load = load
    this.#stalenessMs = stalenessMs
    this.#maxEntries = maxEntries
    this.#clock = clock
  }

  /**
   * The verdict for `presented`, synchronously when a fresh cached epoch settles it. Rejects when the
   * store fails (callers answer `unavailable`).
   */
  verify(accountId: string, presented: number): EpochVerdict | Promise<EpochVerdict> {
    const entry = this.#entries.get(accountId)
    if (entry !== undefined && this.#clock() < entry.until && presented <= entry.epoch) {
      return presented === entry.epoch ? 'current' : 'stale'
    }
    return this.#read(accountId).then((epoch) => {
      if (epoch === null) return 'unknown-account'
      return presented === epoch ? 'current' : 'stale'
    })
  }

  /** Records an epoch this instance just read or wrote (after a bump, a sign-in, a refresh). */
  remember(accountId: string, epoch: number): void {
    if (this.#stalenessMs === 0) return
    const current = this.#entries.get(accountId)
    // Never move backwards: a slow read may finish after a bump on this instance.
    if (current !== undefined && current.epoch > epoch && this.#clock() < current.until) return
    this.#entries.delete(accountId)
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(accountId, { epoch, until: this.#clock() + this.#stalenessMs })
  }

  /** Drops the account's entry (the next check reads the store). */
  forget(accountId: string): void {
    this.#entries.delete(accountId)
  }

  get size(): number {
    return this.#entries.size
  }

  /** One read per account at a time (not in strict mode, where every check reads on its own). */
  #read(accountId: string): Promise<number | null> {
    if (this.#stalenessMs === 0) return this.#load(accountId)
    const pending = this.#loading.get(accountId)
    if (pending !== undefined) return pending
    const started = this.#load(accountId).then(
      (epoch) => {
        this.#loading.delete(accountId)
        if (epoch === null) this.#entries.delete(accountId)
        else this.remember(accountId, epoch)
        return epoch
      },
      (error: unknown) => {
        this.#loading.delete(accountId)
        throw error
      },
    )
    this.#loading.set(accountId, started)
    return started
  }
}
