import { CacheTrust } from '../revocation/cache-trust.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { OAuthGrantStatus, OAuthGrants } from './port.js'

interface Entry {
  readonly status: OAuthGrantStatus
  readonly readAt: number
}

interface Loading {
  readonly promise: Promise<OAuthGrantStatus | undefined>
  readonly generation: number
}

export interface GrantStatusCacheOptions {
  readonly maxEntries: number
  /** How long an active status is believed after its read, while the notices are trusted. */
  readonly maxTtlMs: number
  readonly clock: () => number
}

/**
 * Per-instance cache of active grant statuses, keyed by grant id, with an account -> grant ids index.
 * Believed only while the revocation notices are trusted (otherwise every check reads `status`); a
 * `grant` notice drops that grant, an `account` notice every grant of the account, a flush everything.
 * Only active statuses are kept (an ended grant never comes back, and a miss costs one indexed read).
 *
 * Race-free against notices: every notice moves the generation, a read caches its answer only if the
 * generation did not move while it was in flight, and a check never joins a read begun before the last
 * notice (it starts its own), so no answer read before a revocation is served after it.
 */
export class GrantStatusCache {
  readonly #entries = new Map<string, Entry>()
  readonly #byAccount = new Map<string, Set<string>>()
  readonly #loading = new Map<string, Loading>()
  readonly #grants: Pick<OAuthGrants, 'status'>
  readonly #trust: CacheTrust
  readonly #maxEntries: number
  readonly #clock: () => number
  readonly #unsubscribe: () => void

  constructor(
    grants: Pick<OAuthGrants, 'status'>,
    notices: RevocationNotices,
    options: GrantStatusCacheOptions,
  ) {
    this.#grants = grants
    this.#trust = new CacheTrust(notices, 0, options.maxTtlMs)
    this.#maxEntries = options.maxEntries
    this.#clock = options.clock
    this.#unsubscribe = notices.subscribe({
      revoked: (notice) => {
        if (notice.kind === 'grant') {
          this.#trust.moved()
          this.#evict(notice.grantId)
        } else if (notice.kind === 'account') {
          this.#trust.moved()
          for (const grantId of [...(this.#byAccount.get(notice.accountId) ?? [])]) this.#evict(grantId)
        }
      },
      flush: () => {
        this.#trust.moved()
        this.#entries.clear()
        this.#byAccount.clear()
        this.#loading.clear()
      },
    })
  }

  get size(): number {
    return this.#entries.size
  }

  /**
   * The grant's status when it is active, else undefined: synchronously from a believed entry, else from
   * one `status` read (shared by the checks that start while no notice arrived). Rejects when the read fails.
   */
  status(grantId: string): OAuthGrantStatus | undefined | Promise<OAuthGrantStatus | undefined> {
    const bound = this.#trust.boundMs()
    if (bound <= 0) return this.#grants.status(grantId)
    const entry = this.#entries.get(grantId)
    if (entry !== undefined) {
      if (this.#clock() < entry.readAt + bound) return entry.status
      this.#evict(grantId)
    }
    const generation = this.#trust.generation
    const pending = this.#loading.get(grantId)
    if (pending !== undefined && pending.generation === generation) return pending.promise
    const readAt = this.#clock()
    const promise = Promise.resolve(this.#grants.status(grantId)).then(
      (status) => {
        if (this.#loading.get(grantId)?.promise === promise) this.#loading.delete(grantId)
        if (status !== undefined) this.#remember(grantId, status, readAt, generation)
        return status
      },
      (error: unknown) => {
        if (this.#loading.get(grantId)?.promise === promise) this.#loading.delete(grantId)
        throw error
      },
    )
    this.#loading.set(grantId, { promise, generation })
    return promise
  }

  /** Stops listening to notices (the cache then holds nothing and reads every time). */
  close(): void {
    this.#unsubscribe()
    this.#trust.moved()
    this.#entries.clear()
    this.#byAccount.clear()
    this.#loading.clear()
  }

  #remember(grantId: string, status: OAuthGrantStatus, readAt: number, generation: number): void {
    if (generation !== this.#trust.generation || this.#trust.boundMs() <= 0) return
    if (status.grantId !== grantId) return
    this.#evict(grantId)
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done === true) break
      this.#evict(oldest.value)
    }
    this.#entries.set(grantId, { status: Object.freeze({ ...status }), readAt })
    let grants = this.#byAccount.get(status.accountId)
    if (grants === undefined) {
      grants = new Set()
      this.#byAccount.set(status.accountId, grants)
    }
    grants.add(grantId)
  }

  #evict(grantId: string): void {
    this.#loading.delete(grantId)
    const entry = this.#entries.get(grantId)
    if (entry === undefined) return
    this.#entries.delete(grantId)
    const grants = this.#byAccount.get(entry.status.accountId)
    grants?.delete(grantId)
    if (grants?.size === 0) this.#byAccount.delete(entry.status.accountId)
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `GrantStatusCache { entries: ${this.#entries.size} }`
  }
}
