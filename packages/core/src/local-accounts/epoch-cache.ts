import type { CacheTrust } from '../revocation/cache-trust.js'

/** How a presented security epoch compares with the account's current one. */
export type EpochVerdict = 'current' | 'stale' | 'unknown-account'

interface Entry {
  readonly epoch: number
  readonly readAt: number
}

/**
 * A per-instance, bounded cache of accounts' security epochs. An entry is believed for `trust.boundMs()`
 * after it was read (the long safety bound while revocation notices are trusted, else the staleness
 * setting); the instance that bumps an epoch updates it at once, and a notice from any instance drops it.
 * A bound of 0 is strict mode: every check reads the store. A presented epoch newer than the cached one
 * (an epoch bumped on another instance since) always reads the store before deciding.
 */
export class EpochCache {
  readonly #entries = new Map<string, Entry>()
  readonly #loading = new Map<string, Promise<number | null>>()
  readonly #load: (accountId: string) => Promise<number | null>
  readonly #trust: CacheTrust
  readonly #maxEntries: number
  readonly #clock: () => number

  constructor(
    load: (accountId: string) => Promise<number | null>,
    trust: CacheTrust,
    maxEntries: number,
    clock: () => number,
  ) {
    this.#load = load
    this.#trust = trust
    this.#maxEntries = maxEntries
    this.#clock = clock
  }

  /** The caches' generation now: pass it to `remember` for an epoch read or written after this. */
  get generation(): number {
    return this.#trust.generation
  }

  /**
   * The verdict for `presented`, synchronously when a believed cached epoch settles it. Rejects when the
   * store fails (callers answer `unavailable`).
   */
  verify(accountId: string, presented: number): EpochVerdict | Promise<EpochVerdict> {
    const entry = this.#entries.get(accountId)
    if (
      entry !== undefined &&
      this.#clock() < entry.readAt + this.#trust.boundMs() &&
      presented <= entry.epoch
    ) {
      return presented === entry.epoch ? 'current' : 'stale'
    }
    return this.#read(accountId).then((epoch) => {
      if (epoch === null) return 'unknown-account'
      return presented === epoch ? 'current' : 'stale'
    })
  }

  /**
   * Records an epoch this instance read or wrote (after a bump, a sign-in, a refresh), unless a notice
   * reached the caches since `generation` (read `generation` before the store call).
   */
  remember(accountId: string, epoch: number, generation: number): void {
    if (generation !== this.#trust.generation || this.#trust.boundMs() <= 0) return
    const now = this.#clock()
    const current = this.#entries.get(accountId)
    // Never move backwards: a slow read may finish after a bump on this instance.
    if (current !== undefined && current.epoch > epoch && now < current.readAt + this.#trust.boundMs()) return
    this.#entries.delete(accountId)
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(accountId, { epoch, readAt: now })
  }

  /** Drops the account's entry and any read in flight for it (the next check reads the store afresh). */
  forget(accountId: string): void {
    this.#entries.delete(accountId)
    this.#loading.delete(accountId)
  }

  /** Drops everything (notices may have been lost). */
  clear(): void {
    this.#entries.clear()
    this.#loading.clear()
  }

  get size(): number {
    return this.#entries.size
  }

  /** One read per account at a time, unless nothing may be believed (strict: every check reads alone). */
  #read(accountId: string): Promise<number | null> {
    if (this.#trust.boundMs() <= 0) return this.#load(accountId)
    const pending = this.#loading.get(accountId)
    if (pending !== undefined) return pending
    const generation = this.#trust.generation
    const started = this.#load(accountId).then(
      (epoch) => {
        if (this.#loading.get(accountId) === started) this.#loading.delete(accountId)
        if (epoch === null) this.#entries.delete(accountId)
        else this.remember(accountId, epoch, generation)
        return epoch
      },
      (error: unknown) => {
        if (this.#loading.get(accountId) === started) this.#loading.delete(accountId)
        throw error
      },
    )
    this.#loading.set(accountId, started)
    return started
  }
}
