import { invalidInput } from './errors.js'
import { type InstantInput, requireInstant, requireScopes } from './input.js'

/** What an application hands over after a token response; validated by `new ProviderTokenSet(init)`. */
export interface ProviderTokenSetInit {
  readonly accessToken: string
  /** Only bearer tokens are retained; compared case-insensitively. Default `Bearer`. */
  readonly tokenType?: string
  readonly scopes: readonly string[]
  readonly expiresAt: InstantInput
  readonly refreshToken?: string | null
  readonly idToken?: string | null
}

const MAX_TOKEN_LENGTH = 16 * 1024
const VISIBLE_ASCII = /^[\x21-\x7e]+$/
const INSPECT = Symbol.for('nodejs.util.inspect.custom')

function requireToken(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidInput(`${field} must be a non-empty string`)
  if (value.length > MAX_TOKEN_LENGTH)
    throw invalidInput(`${field} must be at most ${MAX_TOKEN_LENGTH} characters`)
  if (!VISIBLE_ASCII.test(value)) throw invalidInput(`${field} must be visible ASCII`)
  return value
}

function optionalToken(value: unknown, field: string): string | null {
  return value === undefined || value === null ? null : requireToken(value, field)
}

/**
 * Provider tokens (access, optional refresh and ID token) plus their secret-free facts. The token
 * strings live in private fields: `util.inspect`, `JSON.stringify` and `toString` show `[redacted]`.
 */
export class ProviderTokenSet {
  readonly tokenType: 'Bearer' = 'Bearer'
  readonly scopes: readonly string[]
  readonly expiresAt: Date
  readonly #accessToken: string
  readonly #refreshToken: string | null
  readonly #idToken: string | null

  constructor(init: ProviderTokenSetInit) {
    if (typeof init !== 'object' || init === null) throw invalidInput('token set must be an object')
    if (
      init.tokenType !== undefined &&
      (typeof init.tokenType !== 'string' || init.tokenType.toLowerCase() !== 'bearer')
    ) {
      throw invalidInput('tokenType must be Bearer')
    }
    this.#accessToken = requireToken(init.accessToken, 'accessToken')
    this.#refreshToken = optionalToken(init.refreshToken, 'refreshToken')
    this.#idToken = optionalToken(init.idToken, 'idToken')
    this.scopes = requireScopes(init.scopes, 'token scopes')
    this.expiresAt = requireInstant(init.expiresAt, 'token expiresAt')
    Object.freeze(this)
  }

  get accessToken(): string {
    return this.#accessToken
  }

  get refreshToken(): string | null {
    return this.#refreshToken
  }

  get idToken(): string | null {
    return this.#idToken
  }

  /** A copy with some fields replaced, for example the rotated tokens of a refresh. */
  with(changes: Partial<ProviderTokenSetInit>): ProviderTokenSet {
    return new ProviderTokenSet({
      accessToken: changes.accessToken ?? this.#accessToken,
      scopes: changes.scopes ?? this.scopes,
      expiresAt: changes.expiresAt ?? this.expiresAt,
      refreshToken: changes.refreshToken === undefined ? this.#refreshToken : changes.refreshToken,
      idToken: changes.idToken === undefined ? this.#idToken : changes.idToken,
    })
  }

  toJSON(): Record<string, unknown> {
    return {
      tokenType: this.tokenType,
      scopes: this.scopes,
      expiresAt: this.expiresAt.toISOString(),
      accessToken: '[redacted]',
      refreshToken: this.#refreshToken === null ? null : '[redacted]',
      idToken: this.#idToken === null ? null : '[redacted]',
    }
  }

  toString(): string {
    return `ProviderTokenSet(${this.scopes.join(' ')}; expires ${this.expiresAt.toISOString()})`
  }

  [INSPECT](): string {
    return `ProviderTokenSet ${JSON.stringify(this.toJSON())}`
  }
}
