import { randomBytes as nodeRandomBytes, timingSafeEqual } from 'node:crypto'
import type { CredentialRestrictions } from '../authentication/principal.js'
import {
  VerifiedCache,
  type VerifiedCacheOptions,
  verifiedCacheBounds,
  verifiedCacheOptions,
} from '../cache/verified-cache.js'
import { numberBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import { ApiKeyError } from './api-key-error.js'
import {
  API_KEY_ID_BYTES,
  API_KEY_SECRET_BYTES,
  type ApiKeyParts,
  assertApiKeyPrefix,
  formatApiKey,
  isApiKeyId,
  parseApiKey,
} from './api-key-format.js'
import { ApiKeyLookupCache } from './api-key-lookup-cache.js'
import type { ApiKeyPepperRing } from './api-key-pepper.js'
import { type ApiKeyRecord, apiKeyStatus, assertRestrictions } from './api-key-record.js'
import type { ApiKeyStore } from './api-key-store.js'
import { IssuedApiKey } from './issued-api-key.js'

export interface ApiKeyServiceOptions {
  readonly store: ApiKeyStore
  readonly peppers: ApiKeyPepperRing
  /** Wire prefix, 1-32 letters or digits. Default `pk`. Name your environment: `acme`, `acmetest`. */
  readonly prefix?: string
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  /** Default `crypto.randomBytes`. */
  readonly randomBytes?: (size: number) => Uint8Array
  /** Longest allowed rotation overlap. Default 7 days. */
  readonly maxOverlapSeconds?: number
  /**
   * Remembers the HMAC digest of keys that verified, keyed by the SHA-256 of the presented value (never the
   * key itself), so a key in use is not re-digested on every request. The store is still read on every
   * request, so revocation, expiry and rotation take effect at once. Default `{ maxEntries: 10000,
   * maxTtlSeconds: 300 }`; `false` turns it off.
   */
  readonly digestMemo?: false | VerifiedCacheOptions
  /**
   * Revocation notices shared by every instance (`PostgresRevocationNotices`, or the memory store's
   * `MemoryRevocationNotices`). With them, keys that verified are answered from the verified-lookup cache
   * while the notices are trusted, with no store read; a revocation or rotation on any instance evicts
   * the key everywhere within moments. While they are not trusted (listener down), every request reads
   * the store, as without them.
   */
  readonly notices?: RevocationNotices
  /**
   * Bounds of the verified-lookup cache (used only with `notices`): keyed by the SHA-256 of the presented
   * key, successes only. `maxTtlSeconds` is a safety bound (notices evict at once). Default
   * `{ maxEntries: 10000, maxTtlSeconds: 300 }`; `false` turns it off.
   */
  readonly lookupCache?: false | VerifiedCacheOptions
}

export interface IssueApiKeyRequest {
  readonly ownerId: string
  /** Default `service`. */
  readonly ownerKind?: 'user' | 'service'
  readonly restrictions?: CredentialRestrictions
  readonly expiresAt?: Date
  readonly label?: string
}

export interface RotateApiKeyRequest {
  /** How long the current key keeps working. Default 0: it stops now. */
  readonly overlapSeconds?: number
  /** Default: the current key's restrictions. */
  readonly restrictions?: CredentialRestrictions
  /** Default: now plus the current key's original lifetime, or none. */
  readonly expiresAt?: Date
  readonly label?: string
}

/** Result of checking a presented key. `malformed` means no store lookup happened. */
export type ApiKeyVerification =
  | { readonly kind: 'valid'; readonly record: ApiKeyRecord }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

const API_KEY_SERVICE_OPTIONS: OptionsShape<ApiKeyServiceOptions> = {
  store: { required: true, kind: 'object' },
  peppers: { required: true, kind: 'object' },
  prefix: { kind: 'string', code: 'api_key.invalid_prefix' },
  clock: { kind: 'function' },
  randomBytes: { kind: 'function' },
  maxOverlapSeconds: { kind: 'number', check: numberBetween(0) },
  digestMemo: { kind: ['false', 'object'], shape: verifiedCacheOptions('api_key.invalid_config') },
  notices: {
    kind: 'object',
    code: 'api_key.invalid_config',
    check: (value) =>
      typeof (value as { trusted?: unknown }).trusted === 'function' &&
      typeof (value as { subscribe?: unknown }).subscribe === 'function'
        ? undefined
        : 'must be a RevocationNotices (trusted, subscribe, publish)',
  },
  lookupCache: { kind: ['false', 'object'], shape: verifiedCacheOptions('api_key.invalid_config') },
}

type MemoizedDigest = { readonly pepperVersion: string; readonly digest: Buffer }

const MALFORMED: ApiKeyVerification = Object.freeze({ kind: 'malformed' })
const UNKNOWN: ApiKeyVerification = Object.freeze({ kind: 'invalid', reason: 'api-key: unknown key' })
const MISMATCH: ApiKeyVerification = Object.freeze({ kind: 'invalid', reason: 'api-key: digest mismatch' })
const STORE_UNAVAILABLE: ApiKeyVerification = Object.freeze({
  kind: 'unavailable',
  reason: 'api-key: store unavailable',
})

/** The store failed: unavailable, keeping the store's own `retryAfterSeconds` hint when it gave one. */
function storeUnavailable(error: unknown): ApiKeyVerification {
  const seconds = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0
    ? { kind: 'unavailable', reason: 'api-key: store unavailable', retryAfterSeconds: seconds }
    : STORE_UNAVAILABLE
}

function digestMemo(options: ApiKeyServiceOptions['digestMemo'], clock: () => number) {
  if (options === false) return undefined
  const { maxEntries, maxTtlMs } = verifiedCacheBounds(options ?? {}, 'digestMemo', 'api_key.invalid_config')
  return new VerifiedCache<MemoizedDigest>(maxEntries, maxTtlMs, clock)
}

function lookupCache(options: ApiKeyServiceOptions, clock: () => number): ApiKeyLookupCache | undefined {
  if (options.notices === undefined || options.lookupCache === false) return undefined
  const bounds = verifiedCacheBounds(options.lookupCache ?? {}, 'lookupCache', 'api_key.invalid_config')
  return new ApiKeyLookupCache(options.notices, { ...bounds, clock })
}

/** Equal contents of two arrays of the same length, without leaving the loop early. */
function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  let difference = 0
  for (let index = 0; index < left.length; index += 1) {
    difference |= (left[index] as number) ^ (right[index] as number)
  }
  return difference === 0
}

/** Issues, rotates, revokes and verifies API keys. Raw keys exist only in the `IssuedApiKey` returned once. */
export class ApiKeyService {
  readonly prefix: string
  readonly #store: ApiKeyStore
  readonly #peppers: ApiKeyPepperRing
  readonly #clock: () => number
  readonly #random: (size: number) => Uint8Array
  readonly #maxOverlapSeconds: number
  readonly #memo: VerifiedCache<MemoizedDigest> | undefined
  readonly #lookups: ApiKeyLookupCache | undefined

  constructor(options: ApiKeyServiceOptions) {
    readOptions(options, 'ApiKeyService', API_KEY_SERVICE_OPTIONS)
    this.prefix = options.prefix ?? 'pk'
    assertApiKeyPrefix(this.prefix)
    this.#store = options.store
    this.#peppers = options.peppers
    this.#clock = options.clock ?? Date.now
    this.#random = options.randomBytes ?? nodeRandomBytes
    this.#maxOverlapSeconds = options.maxOverlapSeconds ?? 7 * 86_400
    this.#memo = digestMemo(options.digestMemo, this.#clock)
    this.#lookups = lookupCache(options, this.#clock)
  }

  /** Keys held by the verified-lookup cache (0 without notices). */
  get cachedLookups(): number {
    return this.#lookups?.size ?? 0
  }

  async issue(request: IssueApiKeyRequest): Promise<IssuedApiKey> {
    const now = new Date(this.#clock())
    if (!isStrictIdentifier(request.ownerId))
      throw new ApiKeyError('api_key.invalid_input', 'ownerId must be a non-blank string')
    if (request.expiresAt !== undefined && !(request.expiresAt > now)) {
      throw new ApiKeyError('api_key.invalid_input', 'expiresAt must be in the future')
    }
    const { record, value } = this.#mint(now, {
      ownerId: request.ownerId,
      ownerKind: request.ownerKind ?? 'service',
      restrictions: request.restrictions ?? {},
      expiresAt: request.expiresAt,
      label: request.label,
    })
    await this.#store.create(record)
    return new IssuedApiKey(record, value)
  }

  /** Replaces a key. Of concurrent rotations of the same key one wins; the others get `api_key.not_active`. */
  async rotate(currentKeyId: string, request: RotateApiKeyRequest = {}): Promise<IssuedApiKey> {
    const overlapSeconds = request.overlapSeconds ?? 0
    if (!Number.isFinite(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > this.#maxOverlapSeconds) {
      throw new ApiKeyError(
        'api_key.invalid_input',
        `overlapSeconds must be between 0 and ${this.#maxOverlapSeconds}`,
      )
    }
    if (!isApiKeyId(currentKeyId)) throw new ApiKeyError('api_key.not_found', 'API key not found')
    const current = await this.#store.get(currentKeyId)
    if (current === undefined) throw new ApiKeyError('api_key.not_found', 'API key not found')
    const now = new Date(this.#clock())
    const lifetime =
      current.expiresAt === undefined ? undefined : current.expiresAt.getTime() - current.createdAt.getTime()
    const expiresAt =
      request.expiresAt ?? (lifetime === undefined ? undefined : new Date(now.getTime() + lifetime))
    if (expiresAt !== undefined && !(expiresAt > now))
      throw new ApiKeyError('api_key.invalid_input', 'expiresAt must be in the future')
    const { record, value } = this.#mint(now, {
      ownerId: current.ownerId,
      ownerKind: current.ownerKind,
      restrictions: request.restrictions ?? current.restrictions,
      expiresAt,
      label: request.label ?? current.label,
    })
    await this.#store.rotate({
      currentKeyId,
      replacement: record,
      now,
      ...(overlapSeconds === 0 ? {} : { overlapUntil: new Date(now.getTime() + overlapSeconds * 1000) }),
    })
    return new IssuedApiKey(record, value)
  }

  async revoke(keyId: string): Promise<void> {
    if (!isApiKeyId(keyId)) throw new ApiKeyError('api_key.not_found', 'API key not found')
    await this.#store.revoke(keyId, new Date(this.#clock()))
  }

  /**
   * Malformed values cost no store lookup; well-formed ones at most one (none when the verified-lookup
   * cache answers, see `notices`). Settles synchronously when the cache or the store answers
   * synchronously. Never throws, never rejects.
   */
  verify(value: string): ApiKeyVerification | Promise<ApiKeyVerification> {
    const parts = parseApiKey(value, this.prefix)
    if (parts === undefined) return MALFORMED
    const lookups = this.#lookups?.usable === true ? this.#lookups : undefined
    const cacheKey =
      lookups === undefined && this.#memo === undefined ? undefined : VerifiedCache.keyOf(value)
    if (lookups !== undefined && cacheKey !== undefined) {
      const hit = lookups.get(cacheKey)
      if (hit !== undefined) return this.#status(hit)
    }
    const lookup =
      lookups === undefined ? undefined : { readAt: this.#clock(), generation: lookups.generation }
    let answer: ReturnType<ApiKeyStore['get']>
    try {
      answer = this.#store.get(parts.keyId)
    } catch (error) {
      return storeUnavailable(error)
    }
    if (typeof (answer as { then?: unknown } | undefined)?.then !== 'function') {
      return this.#check(parts, answer as ApiKeyRecord | undefined, cacheKey, lookup)
    }
    return Promise.resolve(answer).then(
      (record) => this.#check(parts, record, cacheKey, lookup),
      storeUnavailable,
    )
  }

  #status(record: ApiKeyRecord): ApiKeyVerification {
    const status = apiKeyStatus(record, this.#clock())
    if (status === 'expired' || status === 'revoked') return { kind: 'invalid', reason: `api-key: ${status}` }
    return { kind: 'valid', record }
  }

  #check(
    parts: ApiKeyParts,
    record: ApiKeyRecord | undefined,
    cacheKey: string | undefined,
    lookup: { readonly readAt: number; readonly generation: number } | undefined,
  ): ApiKeyVerification {
    if (record === undefined || record.keyId !== parts.keyId) return UNKNOWN
    const memoKey = this.#memo === undefined ? undefined : cacheKey
    const memoized = memoKey === undefined ? undefined : this.#memo?.get(memoKey)
    const remembered = memoized !== undefined && memoized.pepperVersion === record.pepperVersion
    const expected = remembered
      ? memoized.digest
      : this.#peppers.digest(record.pepperVersion, parts.keyId, parts.secret)
    if (expected === undefined) return { kind: 'invalid', reason: 'api-key: retired pepper version' }
    const stored = record.digest
    if (!(stored instanceof Uint8Array) || stored.byteLength !== expected.byteLength) return MISMATCH
    // A fresh digest of the presented secret is compared in constant time. A remembered digest exists only
    // for a value that already matched this key's record: comparing it involves no attacker-chosen bytes and
    // only catches a record whose digest changed since, so a plain comparison is enough there.
    if (!(remembered ? sameBytes(expected, stored) : timingSafeEqual(expected, stored))) return MISMATCH
    const verdict = this.#status(record)
    if (verdict.kind !== 'valid') return verdict
    if (memoKey !== undefined && !remembered) {
      this.#memo?.set(memoKey, { pepperVersion: record.pepperVersion, digest: expected })
    }
    if (lookup !== undefined && cacheKey !== undefined) {
      this.#lookups?.set(cacheKey, record, lookup.readAt, lookup.generation)
    }
    return verdict
  }

  #mint(
    now: Date,
    fields: {
      ownerId: string
      ownerKind: 'user' | 'service'
      restrictions: CredentialRestrictions
      expiresAt: Date | undefined
      label: string | undefined
    },
  ): { record: ApiKeyRecord; value: string } {
    assertRestrictions(fields.restrictions)
    const keyId = this.#randomText(API_KEY_ID_BYTES)
    const secret = this.#randomText(API_KEY_SECRET_BYTES)
    const version = this.#peppers.activeVersion
    const digest = this.#peppers.digest(version, keyId, secret)
    if (digest === undefined) throw new ApiKeyError('api_key.generation_failed', 'active pepper is missing')
    const record: ApiKeyRecord = {
      keyId,
      ownerId: fields.ownerId,
      ownerKind: fields.ownerKind,
      digest: new Uint8Array(digest),
      pepperVersion: version,
      restrictions: structuredClone(fields.restrictions),
      createdAt: now,
      ...(fields.expiresAt === undefined ? {} : { expiresAt: new Date(fields.expiresAt) }),
      ...(fields.label === undefined ? {} : { label: fields.label }),
    }
    return { record, value: formatApiKey(this.prefix, keyId, secret) }
  }

  #randomText(size: number): string {
    let bytes: Uint8Array
    try {
      bytes = this.#random(size)
    } catch (error) {
      throw new ApiKeyError('api_key.generation_failed', 'random source failed', { cause: error })
    }
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== size) {
      throw new ApiKeyError('api_key.generation_failed', 'random source returned the wrong number of bytes')
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  }
}
