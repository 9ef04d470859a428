import { readOptions } from '../errors/options.js'
import { ConfigurationError, isPortcullisError } from '../errors/portcullis-error.js'
import { type FreshnessPolicy, freshnessSeconds } from './freshness.js'
import { type KeySet, parseJWKSDocument, selectionId } from './jwks-document.js'
import { JWKSError } from './jwks-error.js'
import { createFetchJWKSFetcher, type JWKSFetcher } from './jwks-fetcher.js'
import { CACHED_JWKS_PROVIDER_OPTIONS, type CachedJWKSProviderOptions, jwksPolicy } from './jwks-policy.js'
import type {
  JWKSAlgorithm,
  JWKSKeyRequest,
  JWKSKeySelection,
  JWKSProvider,
  JWKSSource,
} from './jwks-provider.js'
import { JWKS_SOURCE_OPTIONS, validateJWKSSource } from './jwks-source.js'

export type { CachedJWKSProviderOptions } from './jwks-policy.js'

export interface JWKSProviderStats {
  readonly fetches: number
  readonly fetchFailures: number
  readonly staleServed: number
  readonly negativeHits: number
}

interface Snapshot {
  readonly generation: number
  readonly keys: KeySet
  readonly freshUntil: number
  readonly etag?: string
}

type RefreshResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string; readonly retryAfterSeconds: number }

interface Entry {
  readonly issuer: string
  readonly jwksUri: string
  readonly algorithms: Set<JWKSAlgorithm>
  snapshot: Snapshot | undefined
  inflight: Promise<RefreshResult> | undefined
  lastForcedRefreshAt: number
  failedUntil: number
  lastFailure: string
  /** Unknown selection ids of the current generation -> until when they are answered without a fetch. */
  readonly missing: Map<string, number>
}

const entryId = (issuer: string, jwksUri: string): string => `${issuer}\u0000${jwksUri}`

/**
 * The shared, cached `JWKSProvider`. Fresh reads are plain map lookups on an immutable snapshot (no lock,
 * no fetch); refreshes are single-flight per source; unknown `kid`s cause at most one forced refresh per
 * cooldown and are then answered from a bounded negative cache; a failed refresh never replaces the live
 * key set and may serve known keys for a bounded stale-if-error window.
 */
export class CachedJWKSProvider implements JWKSProvider {
  readonly #entries = new Map<string, Entry>()
  readonly #fetcher: JWKSFetcher
  readonly #ownsFetcher: boolean
  readonly #clock: () => number
  readonly #allowInsecureLoopback: boolean
  readonly #freshness: FreshnessPolicy
  readonly #cooldownMs: number
  readonly #staleMs: number
  readonly #backoffMs: number
  readonly #limits: { maxBytes: number; maxKeys: number }
  readonly #negativeCacheSize: number
  readonly #abort = new AbortController()
  #generation = 0
  #closing: Promise<void> | undefined
  #stats = { fetches: 0, fetchFailures: 0, staleServed: 0, negativeHits: 0 }

  constructor(options: CachedJWKSProviderOptions = {}) {
    readOptions(options, 'CachedJWKSProvider', CACHED_JWKS_PROVIDER_OPTIONS)
    const policy = jwksPolicy(options)
    this.#fetcher = options.fetcher ?? createFetchJWKSFetcher({ maxBytes: policy.limits.maxBytes })
    this.#ownsFetcher = options.ownsFetcher ?? options.fetcher === undefined
    this.#clock = options.clock ?? Date.now
    this.#allowInsecureLoopback = options.allowInsecureLoopback ?? false
    this.#freshness = policy.freshness
    this.#cooldownMs = policy.cooldownMs
    this.#staleMs = policy.staleMs
    this.#backoffMs = policy.backoffMs
    this.#limits = policy.limits
    this.#negativeCacheSize = policy.negativeCacheSize
    for (const source of options.sources ?? []) this.register(source)
  }

  register(source: JWKSSource): void {
    if (this.#closing !== undefined) throw new ConfigurationError('jwks.closed', 'JWKS provider is closed')
    readOptions(source, 'CachedJWKSProvider.register', JWKS_SOURCE_OPTIONS)
    const valid = validateJWKSSource(source, this.#allowInsecureLoopback)
    const id = entryId(valid.issuer, valid.jwksUri)
    const existing = this.#entries.get(id)
    if (existing !== undefined) {
      for (const algorithm of valid.algorithms) existing.algorithms.add(algorithm)
      return
    }
    this.#entries.set(id, {
      issuer: valid.issuer,
      jwksUri: valid.jwksUri,
      algorithms: new Set(valid.algorithms),
      snapshot: undefined,
      inflight: undefined,
      lastForcedRefreshAt: Number.NEGATIVE_INFINITY,
      failedUntil: Number.NEGATIVE_INFINITY,
      lastFailure: 'jwks.fetch_failed',
      missing: new Map(),
    })
  }

  async selectKey(request: JWKSKeyRequest): Promise<JWKSKeySelection> {
    if (this.#closing !== undefined) return { kind: 'unavailable', reason: 'jwks.closed' }
    const entry = this.#entries.get(entryId(request.issuer, request.jwksUri))
    if (entry === undefined) return { kind: 'invalid', reason: 'jwks.unregistered_source' }
    if (!entry.algorithms.has(request.alg)) return { kind: 'invalid', reason: 'jwks.algorithm_not_allowed' }
    const id = selectionId(request.kid, request.alg)
    const now = this.#clock()
    const snapshot = entry.snapshot
    if (snapshot !== undefined && now < snapshot.freshUntil) {
      const hit = snapshot.keys.get(id)
      if (hit !== undefined) return { kind: 'key', key: hit.verification }
      return this.#unknownKey(entry, id, now)
    }
    const refreshed = await this.#refresh(entry)
    if (refreshed.ok) return this.#afterRefresh(entry, id, now)
    const stale = snapshot?.keys.get(id)
    if (snapshot !== undefined && stale !== undefined && now < snapshot.freshUntil + this.#staleMs) {
      this.#stats.staleServed++
      return { kind: 'key', key: stale.verification }
    }
    return { kind: 'unavailable', reason: refreshed.reason, retryAfterSeconds: refreshed.retryAfterSeconds }
  }

  async warmup(): Promise<void> {
    const cold = [...this.#entries.values()].filter((entry) => entry.snapshot === undefined)
    const results = await Promise.all(cold.map((entry) => this.#refresh(entry)))
    const failed = results.filter((result) => !result.ok).length
    if (failed > 0)
      throw new JWKSError('jwks.warmup_failed', `${failed} JWKS key set(s) could not be fetched`)
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#abort.abort()
      const inflight = [...this.#entries.values()].flatMap((entry) =>
        entry.inflight === undefined ? [] : [entry.inflight],
      )
      await Promise.allSettled(inflight)
      if (this.#ownsFetcher) await this.#fetcher.close?.()
    })()
    return this.#closing
  }

  /** Counters for monitoring: stale answers in particular deserve an alert. */
  stats(): JWKSProviderStats {
    return { ...this.#stats }
  }

  async #unknownKey(entry: Entry, id: string, now: number): Promise<JWKSKeySelection> {
    const rememberedUntil = entry.missing.get(id)
    if (rememberedUntil !== undefined && now < rememberedUntil) {
      this.#stats.negativeHits++
      return { kind: 'invalid', reason: 'jwks.unknown_key' }
    }
    if (entry.inflight === undefined && now - entry.lastForcedRefreshAt < this.#cooldownMs) {
      this.#remember(entry, id, now)
      return { kind: 'invalid', reason: 'jwks.unknown_key' }
    }
    if (entry.inflight === undefined) entry.lastForcedRefreshAt = now
    const refreshed = await this.#refresh(entry)
    if (!refreshed.ok) {
      return { kind: 'unavailable', reason: refreshed.reason, retryAfterSeconds: refreshed.retryAfterSeconds }
    }
    return this.#afterRefresh(entry, id, now)
  }

  #afterRefresh(entry: Entry, id: string, now: number): JWKSKeySelection {
    const hit = entry.snapshot?.keys.get(id)
    if (hit !== undefined) return { kind: 'key', key: hit.verification }
    this.#remember(entry, id, now)
    return { kind: 'invalid', reason: 'jwks.unknown_key' }
  }

  #remember(entry: Entry, id: string, now: number): void {
    entry.missing.delete(id)
    if (entry.missing.size >= this.#negativeCacheSize) {
      const oldest = entry.missing.keys().next()
      if (oldest.done !== true) entry.missing.delete(oldest.value)
    }
    entry.missing.set(id, now + this.#cooldownMs)
  }

  #refresh(entry: Entry): Promise<RefreshResult> {
    if (entry.inflight !== undefined) return entry.inflight
    const now = this.#clock()
    if (now < entry.failedUntil) {
      return Promise.resolve({
        ok: false,
        reason: entry.lastFailure,
        retryAfterSeconds: Math.max(1, Math.ceil((entry.failedUntil - now) / 1000)),
      })
    }
    const inflight = this.#fetchAndInstall(entry).finally(() => {
      entry.inflight = undefined
    })
    entry.inflight = inflight
    return inflight
  }

  async #fetchAndInstall(entry: Entry): Promise<RefreshResult> {
    const previous = entry.snapshot
    this.#stats.fetches++
    try {
      const result = await this.#fetcher.fetch(entry.jwksUri, {
        ...(previous?.etag === undefined ? {} : { etag: previous.etag }),
        signal: this.#abort.signal,
      })
      if (this.#closing !== undefined) throw new JWKSError('jwks.closed', 'JWKS provider is closed')
      if (result.status === 'not-modified') {
        if (previous === undefined) {
          throw new JWKSError(
            'jwks.not_modified_without_keys',
            'JWKS endpoint answered 304 without a cached key set',
          )
        }
        entry.snapshot = { ...previous, freshUntil: this.#freshUntil(result.cacheControl) }
      } else {
        const keys = await parseJWKSDocument(result.body, this.#limits, previous?.keys)
        this.#generation++
        entry.snapshot = {
          generation: this.#generation,
          keys,
          freshUntil: this.#freshUntil(result.cacheControl),
          ...(result.etag === undefined ? {} : { etag: result.etag }),
        }
        entry.missing.clear()
      }
      entry.failedUntil = Number.NEGATIVE_INFINITY
      return { ok: true }
    } catch (error) {
      this.#stats.fetchFailures++
      const reason =
        this.#closing !== undefined
          ? 'jwks.closed'
          : isPortcullisError(error)
            ? error.code
            : 'jwks.fetch_failed'
      entry.lastFailure = reason
      entry.failedUntil = this.#clock() + this.#backoffMs
      return { ok: false, reason, retryAfterSeconds: Math.max(1, Math.ceil(this.#backoffMs / 1000)) }
    }
  }

  #freshUntil(cacheControl: string | undefined): number {
    return this.#clock() + freshnessSeconds(cacheControl, this.#freshness) * 1000
  }
}
