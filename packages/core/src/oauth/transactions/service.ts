import { Buffer } from 'node:buffer'
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto'
import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { OAuthTransactionInvalidError, OAuthTransactionUnavailableError } from './errors.js'
import { PKCE_METHOD, pkceS256Challenge } from './pkce.js'
import type { OAuthRedirectPolicy } from './redirect-policy.js'
import { OAuthTransactionStart, type StartOAuthTransactionInput } from './start.js'
import type { OAuthTransactionStore } from './store.js'
import { isLabel, OAUTH_OPERATIONS, type OAuthOperation, OAuthTransaction } from './transaction.js'

export interface OAuthTransactionServiceOptions {
  readonly store: OAuthTransactionStore
  /** HMAC key for the state, browser-binding and session digests: at least 32 random bytes. */
  readonly pepper: Uint8Array
  readonly redirects: OAuthRedirectPolicy
  /** 1-600 seconds; default 600. */
  readonly lifetimeSeconds?: number
  readonly clock?: () => Date
  /** Source of state, binding, verifier and nonce bytes; defaults to `node:crypto.randomBytes`. */
  readonly randomBytes?: (size: number) => Uint8Array
}

const INJECTION_INVALID = 'oauth.transaction_service.injection_invalid'
const SERVICE_OPTIONS: OptionsShape<OAuthTransactionServiceOptions> = {
  store: { required: true, kind: 'object', code: 'oauth.transaction_service.store_required' },
  pepper: { required: true, kind: 'bytes', code: 'oauth.transaction_service.pepper_invalid' },
  redirects: { required: true, kind: 'object', code: 'oauth.transaction_service.redirects_required' },
  lifetimeSeconds: { kind: 'number', code: 'oauth.transaction_service.lifetime_invalid' },
  clock: { kind: 'function', code: INJECTION_INVALID },
  randomBytes: { kind: 'function', code: INJECTION_INVALID },
}

export interface ConsumeOAuthTransactionInput {
  readonly state: string
  /** The browser-binding cookie value. */
  readonly browserBinding: string
  readonly provider: string
  /** When given, a transaction started for another operation is burned and refused. */
  readonly operation?: OAuthOperation
  /** The caller's session binding; must match the one given at start (both absent also matches). */
  readonly sessionBinding?: string
}

/** State and browser binding as minted: unpadded base64url of 32 random bytes. */
const TOKEN_43 = /^[A-Za-z0-9_-]{43}$/
const LABELS = {
  state: 'portcullis.oauth.state.v1\u0000',
  binding: 'portcullis.oauth.browser-binding.v1\u0000',
  session: 'portcullis.oauth.session-binding.v1\u0000',
} as const

function invalid(): OAuthTransactionInvalidError {
  return new OAuthTransactionInvalidError()
}

function requestInvalid(cause?: unknown): OAuthTransactionInvalidError {
  return new OAuthTransactionInvalidError(
    'oauth.transaction.request_invalid',
    'OAuth transaction request is invalid',
    cause === undefined ? {} : { cause },
  )
}

/**
 * Starts and consumes OAuth round trips. State and browser binding leave only as values for the
 * browser; the store sees their HMAC digests. Consume checks formats before touching the store; a miss
 * (wrong state, binding or provider) does not burn the real transaction, while a hit for the wrong
 * operation or session does. Failures are `OAuthTransactionInvalidError` (401 class) or
 * `OAuthTransactionUnavailableError` (503 class), with messages free of secrets.
 */
export class OAuthTransactionService {
  readonly lifetimeSeconds: number
  readonly #store: OAuthTransactionStore
  readonly #pepper: KeyObject
  readonly #redirects: OAuthRedirectPolicy
  readonly #clock: () => Date
  readonly #random: (size: number) => Uint8Array

  constructor(options: OAuthTransactionServiceOptions) {
    readOptions(options, 'OAuthTransactionService', SERVICE_OPTIONS)
    const store = options.store
    if (typeof store?.create !== 'function' || typeof store.consume !== 'function') {
      throw new ConfigurationError(
        'oauth.transaction_service.store_required',
        'an OAuthTransactionStore is required',
      )
    }
    if (!(options.pepper instanceof Uint8Array) || options.pepper.byteLength < 32) {
      throw new ConfigurationError(
        'oauth.transaction_service.pepper_invalid',
        'pepper must be at least 32 bytes',
      )
    }
    if (typeof options.redirects?.validate !== 'function') {
      throw new ConfigurationError(
        'oauth.transaction_service.redirects_required',
        'an OAuthRedirectPolicy is required',
      )
    }
    const lifetime = options.lifetimeSeconds ?? 600
    if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > 600) {
      throw new ConfigurationError(
        'oauth.transaction_service.lifetime_invalid',
        'lifetimeSeconds must be an integer from 1 to 600',
      )
    }
    const clock = options.clock ?? (() => new Date())
    const random = options.randomBytes ?? randomBytes
    if (typeof clock !== 'function' || typeof random !== 'function') {
      throw new ConfigurationError(
        'oauth.transaction_service.injection_invalid',
        'clock and randomBytes must be functions',
      )
    }
    this.#store = store
    this.#pepper = createSecretKey(Uint8Array.prototype.slice.call(options.pepper))
    this.#redirects = options.redirects
    this.lifetimeSeconds = lifetime
    this.#clock = clock
    this.#random = random
  }

  async start(input: StartOAuthTransactionInput): Promise<OAuthTransactionStart> {
    if (input === null || typeof input !== 'object') throw requestInvalid()
    const returnTo = input.returnTo ?? '/'
    this.#redirects.validate(input.provider, input.redirectUri, returnTo)
    if (!OAUTH_OPERATIONS.includes(input.operation)) throw requestInvalid()
    if (input.sessionBinding !== undefined && !isLabel(input.sessionBinding, 1024)) throw requestInvalid()
    let draws: { state: string; binding: string; verifier: string; nonce: string | null; now: Date }
    try {
      const reused = typeof input.browserBinding === 'string' && TOKEN_43.test(input.browserBinding)
      draws = {
        state: this.#token(),
        binding: reused ? (input.browserBinding as string) : this.#token(),
        verifier: this.#token(),
        nonce: input.includeNonce === false ? null : this.#token(),
        now: this.#now(),
      }
    } catch (cause) {
      throw new OAuthTransactionUnavailableError({ cause })
    }
    let transaction: OAuthTransaction
    try {
      transaction = new OAuthTransaction({
        stateDigest: this.#digest(LABELS.state, draws.state),
        bindingDigest: this.#digest(LABELS.binding, draws.binding),
        provider: input.provider,
        operation: input.operation,
        redirectUri: input.redirectUri,
        returnTo,
        requestedScopes: input.scopes,
        pkceVerifier: draws.verifier,
        nonce: draws.nonce,
        expectedIssuer: input.expectedIssuer,
        accountId: input.accountId,
        sessionBindingDigest:
          input.sessionBinding === undefined ? null : this.#digest(LABELS.session, input.sessionBinding),
        securityEpoch: input.securityEpoch,
        providerAccountId: input.providerAccountId,
        stepUpPurpose: input.stepUpPurpose,
        maxAuthenticationAge: input.maxAuthenticationAge,
        createdAt: draws.now,
        expiresAt: new Date(draws.now.getTime() + this.lifetimeSeconds * 1000),
      })
    } catch (cause) {
      throw requestInvalid(cause)
    }
    try {
      await this.#store.create(transaction)
    } catch (cause) {
      throw new OAuthTransactionUnavailableError({ cause })
    }
    return new OAuthTransactionStart({
      state: draws.state,
      browserBinding: draws.binding,
      bindingReused: draws.binding === input.browserBinding,
      pkceChallenge: pkceS256Challenge(draws.verifier),
      pkceChallengeMethod: PKCE_METHOD,
      nonce: draws.nonce,
      transaction,
    })
  }

  async consume(input: ConsumeOAuthTransactionInput): Promise<OAuthTransaction> {
    const { state, browserBinding, provider, operation, sessionBinding } =
      input ?? ({} as ConsumeOAuthTransactionInput)
    if (typeof state !== 'string' || !TOKEN_43.test(state)) throw invalid()
    if (typeof browserBinding !== 'string' || !TOKEN_43.test(browserBinding)) throw invalid()
    if (!isLabel(provider, 128)) throw invalid()
    if (operation !== undefined && !OAUTH_OPERATIONS.includes(operation)) throw invalid()
    if (sessionBinding !== undefined && !isLabel(sessionBinding, 1024)) throw invalid()
    let transaction: OAuthTransaction | null
    try {
      const key = {
        stateDigest: this.#digest(LABELS.state, state),
        bindingDigest: this.#digest(LABELS.binding, browserBinding),
        provider,
      }
      transaction = await this.#store.consume(key, this.#now())
    } catch (cause) {
      throw new OAuthTransactionUnavailableError({ cause })
    }
    if (transaction === null) throw invalid()
    // From here the transaction is burned: a mismatch below cannot be retried.
    if (operation !== undefined && transaction.operation !== operation) throw invalid()
    if (!this.#sessionMatches(transaction.sessionBindingDigest, sessionBinding)) throw invalid()
    return transaction
  }

  #sessionMatches(stored: Uint8Array | null, given: string | undefined): boolean {
    if (stored === null || given === undefined) return stored === null && given === undefined
    return timingSafeEqual(stored, this.#digest(LABELS.session, given))
  }

  #digest(label: string, value: string): Uint8Array {
    return new Uint8Array(createHmac('sha256', this.#pepper).update(label).update(value, 'utf8').digest())
  }

  #token(): string {
    const bytes = this.#random(32)
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== 32) {
      throw new ConfigurationError(
        'oauth.transaction_service.random_invalid',
        'randomBytes returned the wrong size',
      )
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  }

  #now(): Date {
    const now = this.#clock()
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new ConfigurationError(
        'oauth.transaction_service.clock_invalid',
        'clock returned an invalid Date',
      )
    }
    return now
  }

  toJSON(): { lifetimeSeconds: number } {
    return { lifetimeSeconds: this.lifetimeSeconds }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OAuthTransactionService { lifetimeSeconds: ${this.lifetimeSeconds}, pepper: [redacted] }`
  }
}
