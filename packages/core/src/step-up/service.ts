import { randomBytes as nodeRandomBytes, timingSafeEqual } from 'node:crypto'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { isImpersonationHandle } from '../impersonation/handle.js'
import { StepUpCredential } from './credential.js'
import { invalidStepUpInput, StepUpError, StepUpErrorCodes } from './errors.js'
import {
  digestOf,
  requireAccountId,
  requireDate,
  requireEpoch,
  requirePurpose,
  requireSessionBinding,
  TOKEN_FORMAT,
} from './input.js'
import type { StepUpRecord, StepUpStore } from './store.js'

export const DEFAULT_STEP_UP_TTL_SECONDS = 300
export const MAX_STEP_UP_TTL_SECONDS = 900
const TOKEN_BYTES = 32

export interface StepUpServiceOptions {
  readonly store: StepUpStore
  /** Default `() => new Date()`. */
  readonly clock?: () => Date
  /** Default `node:crypto` `randomBytes`; must return exactly `size` bytes. */
  readonly randomBytes?: (size: number) => Uint8Array
  /** Lifetime of issued credentials, 1..900 seconds. Default 300 (5 minutes). */
  readonly ttlSeconds?: number
}

const STEP_UP_SERVICE_OPTIONS: OptionsShape<StepUpServiceOptions> = {
  store: { required: true, kind: 'object', code: 'step-up.service_options' },
  clock: { kind: 'function' },
  randomBytes: { kind: 'function' },
  ttlSeconds: { kind: 'number', code: 'step-up.ttl' },
}

/** What a credential is bound to. Every field must match exactly when it is consumed. */
export interface StepUpBinding {
  readonly accountId: string
  readonly purpose: string
  /** The account's current security epoch; raising it (password change) invalidates old credentials. */
  readonly securityEpoch: number
  /** A stable value of the session the credential was issued to (a session id, a token `jti`). */
  readonly sessionBinding: string
}

export interface StepUpIssueRequest extends StepUpBinding {
  /** When the user proved presence; default now. Must not be in the future nor older than the TTL. */
  readonly authenticatedAt?: Date
  /** Shorter lifetime for this credential, 1..the service TTL. */
  readonly ttlSeconds?: number
}

export interface StepUpConsumeRequest extends StepUpBinding {
  /** The token the client presented; untrusted. */
  readonly token: string
}

export interface StepUpGrant {
  readonly accountId: string
  readonly purpose: string
  readonly securityEpoch: number
  readonly issuedAt: Date
  readonly authenticatedAt: Date
  readonly expiresAt: Date
}

export type StepUpRejection = 'malformed' | 'unknown' | 'expired' | 'binding-mismatch'

/** `reason` is for logs and metrics only. A guard answers `rejected` with 401 and `unavailable` with 503. */
export type StepUpConsumeResult =
  | { readonly kind: 'consumed'; readonly grant: StepUpGrant }
  | { readonly kind: 'rejected'; readonly reason: StepUpRejection }
  | { readonly kind: 'unavailable'; readonly reason: string }

/**
 * Issues one-use step-up credentials bound to account, purpose, security epoch and session, and
 * consumes them exactly once. Any presentation of a genuine token burns it, even with a wrong
 * binding, so a stolen token cannot be probed against other purposes or sessions.
 */
export class StepUpService {
  readonly ttlSeconds: number
  readonly #store: StepUpStore
  readonly #clock: () => Date
  readonly #randomBytes: (size: number) => Uint8Array

  constructor(options: StepUpServiceOptions) {
    readOptions(options, 'StepUpService', STEP_UP_SERVICE_OPTIONS)
    if (typeof options.store.save !== 'function' || typeof options.store.take !== 'function') {
      throw new ConfigurationError('step-up.service_options', 'StepUpService needs a store')
    }
    const ttl = options.ttlSeconds ?? DEFAULT_STEP_UP_TTL_SECONDS
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_STEP_UP_TTL_SECONDS) {
      throw new ConfigurationError(
        'step-up.ttl',
        `ttlSeconds must be an integer from 1 to ${MAX_STEP_UP_TTL_SECONDS}`,
      )
    }
    this.ttlSeconds = ttl
    this.#store = options.store
    this.#clock = options.clock ?? (() => new Date())
    this.#randomBytes = options.randomBytes ?? ((size) => nodeRandomBytes(size))
  }

  /**
   * Issues a credential. Bad input throws `step-up.invalid_input`; randomness or store failure
   * `step-up.unavailable`; a session binding of an impersonation session `step-up.impersonated` (an
   * impersonation never changes a password, an address or a factor, nor deletes the account).
   */
  async issue(request: StepUpIssueRequest): Promise<StepUpCredential> {
    const accountId = requireAccountId(request?.accountId)
    const purpose = requirePurpose(request.purpose)
    const securityEpoch = requireEpoch(request.securityEpoch)
    const binding = requireSessionBinding(request.sessionBinding)
    if (isImpersonationHandle(binding)) {
      throw new StepUpError(
        StepUpErrorCodes.impersonated,
        'an impersonation session cannot obtain a step-up credential',
      )
    }
    const sessionDigest = digestOf(binding)
    const ttl = request.ttlSeconds ?? this.ttlSeconds
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > this.ttlSeconds) {
      throw invalidStepUpInput(`ttlSeconds must be an integer from 1 to ${this.ttlSeconds}`)
    }
    const now = this.#now()
    const authenticatedAt = requireDate(request.authenticatedAt ?? now, 'authenticatedAt')
    if (authenticatedAt.getTime() > now.getTime())
      throw invalidStepUpInput('authenticatedAt is in the future')
    if (now.getTime() - authenticatedAt.getTime() > ttl * 1000)
      throw invalidStepUpInput('authenticatedAt is too old')
    const token = this.#token()
    const record: StepUpRecord = {
      digest: digestOf(token),
      accountId,
      purpose,
      securityEpoch,
      sessionDigest,
      issuedAt: now,
      authenticatedAt,
      expiresAt: new Date(now.getTime() + ttl * 1000),
    }
    try {
      await this.#store.save(record)
    } catch (error) {
      throw new StepUpError(StepUpErrorCodes.unavailable, 'the step-up store failed', { cause: error })
    }
    return new StepUpCredential(token, purpose, record.expiresAt)
  }

  /**
   * Redeems a presented token for exactly this binding. Malformed tokens cost no store access. A
   * genuine token is burned by the attempt whatever the outcome. Throws only for bad server-side
   * arguments (the binding); store failures come back as `unavailable`.
   */
  async consume(request: StepUpConsumeRequest): Promise<StepUpConsumeResult> {
    const accountId = requireAccountId(request?.accountId)
    const purpose = requirePurpose(request.purpose)
    const securityEpoch = requireEpoch(request.securityEpoch)
    const sessionDigest = digestOf(requireSessionBinding(request.sessionBinding))
    const token: unknown = request.token
    if (typeof token !== 'string' || !TOKEN_FORMAT.test(token))
      return { kind: 'rejected', reason: 'malformed' }
    let now: Date
    let record: StepUpRecord | null
    const digest = digestOf(token)
    try {
      now = this.#now()
      record = await this.#store.take(digest)
    } catch {
      return { kind: 'unavailable', reason: 'step-up store failed' }
    }
    if (record === null || record.digest !== digest) return { kind: 'rejected', reason: 'unknown' }
    if (!(record.expiresAt instanceof Date) || !(record.issuedAt instanceof Date)) {
      return { kind: 'unavailable', reason: 'step-up store returned a malformed record' }
    }
    if (!(record.expiresAt.getTime() > now.getTime())) return { kind: 'rejected', reason: 'expired' }
    const bound =
      record.accountId === accountId &&
      record.purpose === purpose &&
      record.securityEpoch === securityEpoch &&
      sameDigest(record.sessionDigest, sessionDigest)
    if (!bound) return { kind: 'rejected', reason: 'binding-mismatch' }
    return {
      kind: 'consumed',
      grant: Object.freeze({
        accountId,
        purpose,
        securityEpoch,
        issuedAt: new Date(record.issuedAt.getTime()),
        authenticatedAt: new Date(record.authenticatedAt.getTime()),
        expiresAt: new Date(record.expiresAt.getTime()),
      }),
    }
  }

  #now(): Date {
    try {
      return requireDate(this.#clock(), 'clock()')
    } catch (error) {
      throw new StepUpError(StepUpErrorCodes.unavailable, 'the clock failed', { cause: error })
    }
  }

  #token(): string {
    let bytes: Uint8Array
    try {
      bytes = this.#randomBytes(TOKEN_BYTES)
    } catch (error) {
      throw new StepUpError(StepUpErrorCodes.unavailable, 'randomness failed', { cause: error })
    }
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== TOKEN_BYTES) {
      throw new StepUpError(
        StepUpErrorCodes.unavailable,
        `randomness must yield exactly ${TOKEN_BYTES} bytes`,
      )
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  }
}

function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  return left.length === right.length && timingSafeEqual(left, right)
}
