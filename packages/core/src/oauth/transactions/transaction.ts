import { InvalidInputError } from '../../errors/portcullis-error.js'

/** What an OAuth round trip is for. */
export type OAuthOperation = 'login' | 'link' | 'scope-upgrade' | 'revalidate' | 'reauthenticate'

export const OAUTH_OPERATIONS: readonly OAuthOperation[] = Object.freeze([
  'login',
  'link',
  'scope-upgrade',
  'revalidate',
  'reauthenticate',
])

/** Longest transaction lifetime any store accepts: ten minutes. */
export const MAX_TRANSACTION_LIFETIME_MS = 10 * 60 * 1000
/** Size of the HMAC-SHA256 digests of state, browser binding and session binding. */
export const TRANSACTION_DIGEST_BYTES = 32

/** How a store finds a transaction: digests only, never the raw state or browser binding. */
export interface OAuthTransactionKey {
  readonly stateDigest: Uint8Array
  readonly bindingDigest: Uint8Array
  readonly provider: string
}

/** The non-secret fields of a transaction, exactly as a store keeps them. */
export interface OAuthTransactionFields extends OAuthTransactionKey {
  readonly operation: OAuthOperation
  readonly redirectUri: string
  readonly returnTo: string
  /** Unique scope tokens, sorted. */
  readonly requestedScopes: readonly string[]
  readonly expectedIssuer: string | null
  readonly accountId: string | null
  /** HMAC digest of the application's session binding, when the transaction is tied to a session. */
  readonly sessionBindingDigest: Uint8Array | null
  readonly securityEpoch: number | null
  readonly providerAccountId: string | null
  readonly stepUpPurpose: string | null
  readonly maxAuthenticationAge: number | null
  /** When the transaction started; reauthentication compares the IdP's `auth_time` with it. */
  readonly createdAt: Date
  /** Exclusive: the transaction is gone at this instant. */
  readonly expiresAt: Date
}

export interface OAuthTransactionInit extends OAuthTransactionKey {
  readonly operation: OAuthOperation
  readonly redirectUri: string
  readonly returnTo: string
  readonly requestedScopes?: readonly string[] | undefined
  /** PKCE verifier (43-128 unreserved characters); a secret kept only in envelopes at rest. */
  readonly pkceVerifier: string
  /** OIDC nonce; a secret kept only in envelopes at rest. */
  readonly nonce?: string | null | undefined
  readonly expectedIssuer?: string | null | undefined
  readonly accountId?: string | null | undefined
  readonly sessionBindingDigest?: Uint8Array | null | undefined
  readonly securityEpoch?: number | null | undefined
  readonly providerAccountId?: string | null | undefined
  readonly stepUpPurpose?: string | null | undefined
  /** Seconds, 0-600; only for `reauthenticate`. */
  readonly maxAuthenticationAge?: number | null | undefined
  readonly createdAt: Date
  readonly expiresAt: Date
}

const UNRESERVED_43_128 = /^[A-Za-z0-9._~-]{43,128}$/
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/
const NEEDS_ACCOUNT: ReadonlySet<OAuthOperation> = new Set([
  'link',
  'scope-upgrade',
  'revalidate',
  'reauthenticate',
])

function invalid(field: string, rule: string): InvalidInputError {
  return new InvalidInputError('oauth.transaction.record_invalid', `transaction ${field} ${rule}`)
}

/** True when the string holds a C0 control character or DEL. */
export function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

export function isLabel(value: unknown, maxLength: number): value is string {
  return (
    typeof value === 'string' &&
    value.trim() !== '' &&
    value.length <= maxLength &&
    !hasControlCharacter(value)
  )
}

function label(field: string, value: unknown, maxLength: number): string {
  if (!isLabel(value, maxLength))
    throw invalid(field, `must be a non-blank string of at most ${maxLength} characters`)
  return value
}

function optionalLabel(field: string, value: unknown, maxLength: number): string | null {
  return value === undefined || value === null ? null : label(field, value, maxLength)
}

function digest(field: string, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array) || value.byteLength !== TRANSACTION_DIGEST_BYTES) {
    throw invalid(field, `must be ${TRANSACTION_DIGEST_BYTES} bytes`)
  }
  return new Uint8Array(value)
}

function time(field: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw invalid(field, 'must be a valid Date')
  return new Date(value.getTime())
}

function integer(field: string, value: unknown, min: number, max: number): number | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `must be an integer from ${min} to ${max}`)
  }
  return value
}

function scopes(value: unknown): readonly string[] {
  if (value === undefined) return Object.freeze([])
  if (!Array.isArray(value) || value.length > 64)
    throw invalid('requestedScopes', 'must be at most 64 scope tokens')
  for (const scope of value) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope))
      throw invalid('requestedScopes', 'holds an invalid scope')
  }
  return Object.freeze([...new Set(value as string[])].sort())
}

/** True for a PKCE verifier or OIDC nonce in the RFC 7636 shape (43-128 unreserved characters). */
export function isUnreservedSecret(value: unknown): value is string {
  return typeof value === 'string' && UNRESERVED_43_128.test(value)
}

/**
 * One pending OAuth round trip. Construction validates every field; the PKCE verifier and nonce are
 * secrets and never appear in `util.inspect` or JSON.
 */
export class OAuthTransaction implements OAuthTransactionFields {
  readonly stateDigest: Uint8Array
  readonly bindingDigest: Uint8Array
  readonly provider: string
  readonly operation: OAuthOperation
  readonly redirectUri: string
  readonly returnTo: string
  readonly requestedScopes: readonly string[]
  readonly pkceVerifier: string
  readonly nonce: string | null
  readonly expectedIssuer: string | null
  readonly accountId: string | null
  readonly sessionBindingDigest: Uint8Array | null
  readonly securityEpoch: number | null
  readonly providerAccountId: string | null
  readonly stepUpPurpose: string | null
  readonly maxAuthenticationAge: number | null
  readonly createdAt: Date
  readonly expiresAt: Date

  constructor(init: OAuthTransactionInit) {
    if (init === null || typeof init !== 'object') throw invalid('record', 'must be an object')
    this.stateDigest = digest('stateDigest', init.stateDigest)
    this.bindingDigest = digest('bindingDigest', init.bindingDigest)
    this.provider = label('provider', init.provider, 128)
    if (!OAUTH_OPERATIONS.includes(init.operation))
      throw invalid('operation', 'is not a known OAuth operation')
    this.operation = init.operation
    this.redirectUri = label('redirectUri', init.redirectUri, 2048)
    this.returnTo = label('returnTo', init.returnTo, 2048)
    this.requestedScopes = scopes(init.requestedScopes)
    if (!isUnreservedSecret(init.pkceVerifier))
      throw invalid('pkceVerifier', 'must be 43-128 unreserved characters')
    this.pkceVerifier = init.pkceVerifier
    if (init.nonce !== undefined && init.nonce !== null && !isUnreservedSecret(init.nonce)) {
      throw invalid('nonce', 'must be 43-128 unreserved characters')
    }
    this.nonce = init.nonce ?? null
    this.expectedIssuer = optionalLabel('expectedIssuer', init.expectedIssuer, 2048)
    this.accountId = optionalLabel('accountId', init.accountId, 256)
    this.sessionBindingDigest =
      init.sessionBindingDigest === undefined || init.sessionBindingDigest === null
        ? null
        : digest('sessionBindingDigest', init.sessionBindingDigest)
    this.securityEpoch = integer('securityEpoch', init.securityEpoch, 0, Number.MAX_SAFE_INTEGER)
    this.providerAccountId = optionalLabel('providerAccountId', init.providerAccountId, 256)
    this.stepUpPurpose = optionalLabel('stepUpPurpose', init.stepUpPurpose, 128)
    this.maxAuthenticationAge = integer('maxAuthenticationAge', init.maxAuthenticationAge, 0, 600)
    this.createdAt = time('createdAt', init.createdAt)
    this.expiresAt = time('expiresAt', init.expiresAt)
    const lifetime = this.expiresAt.getTime() - this.createdAt.getTime()
    if (lifetime <= 0 || lifetime > MAX_TRANSACTION_LIFETIME_MS) {
      throw invalid('expiresAt', 'must be after createdAt and at most 10 minutes later')
    }
    if (NEEDS_ACCOUNT.has(this.operation) && this.accountId === null) {
      throw invalid('accountId', `is required for ${this.operation}`)
    }
    if (this.operation === 'reauthenticate' && this.stepUpPurpose === null) {
      throw invalid('stepUpPurpose', 'is required for reauthenticate')
    }
    if (
      this.operation !== 'reauthenticate' &&
      (this.stepUpPurpose !== null || this.maxAuthenticationAge !== null)
    ) {
      throw invalid('stepUpPurpose', 'and maxAuthenticationAge are only for reauthenticate')
    }
    Object.freeze(this)
  }

  /** A loggable view: identity and routing fields, secrets redacted, digests omitted. */
  toJSON(): Record<string, unknown> {
    return {
      provider: this.provider,
      operation: this.operation,
      redirectUri: this.redirectUri,
      returnTo: this.returnTo,
      requestedScopes: this.requestedScopes,
      pkceVerifier: '[redacted]',
      nonce: this.nonce === null ? null : '[redacted]',
      expectedIssuer: this.expectedIssuer,
      accountId: this.accountId,
      sessionBound: this.sessionBindingDigest !== null,
      securityEpoch: this.securityEpoch,
      providerAccountId: this.providerAccountId,
      stepUpPurpose: this.stepUpPurpose,
      maxAuthenticationAge: this.maxAuthenticationAge,
      createdAt: this.createdAt.toISOString(),
      expiresAt: this.expiresAt.toISOString(),
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OAuthTransaction ${JSON.stringify(this.toJSON())}`
  }
}
