import type { OAuthOperation, OAuthTransaction } from './transaction.js'

export interface StartOAuthTransactionInput {
  readonly provider: string
  readonly operation: OAuthOperation
  /** Must be one of the provider's allow-listed callback URIs, exactly. */
  readonly redirectUri: string
  /** Where to send the browser afterwards; must be allow-listed exactly. Default `'/'`. */
  readonly returnTo?: string
  readonly scopes?: readonly string[]
  /** Mint an OIDC nonce (default `true`). */
  readonly includeNonce?: boolean
  /**
   * The browser-binding cookie the request carried, if any. A well-formed value is reused so parallel
   * tabs share one binding; anything else is ignored and a fresh binding is minted.
   */
  readonly browserBinding?: string | undefined
  readonly expectedIssuer?: string
  readonly accountId?: string
  /** An application-defined fingerprint of the current session; stored only as an HMAC digest. */
  readonly sessionBinding?: string
  readonly securityEpoch?: number
  readonly providerAccountId?: string
  readonly stepUpPurpose?: string
  /** Seconds (0-600), for `reauthenticate`. */
  readonly maxAuthenticationAge?: number
}

/**
 * What `OAuthTransactionService.start` hands back: values for the authorization request and the
 * browser-binding cookie. `state`, `browserBinding` and `nonce` are secrets and are redacted from
 * `util.inspect` and JSON.
 */
export class OAuthTransactionStart {
  readonly state: string
  readonly browserBinding: string
  /** False when a fresh binding was minted: the caller must set the binding cookie. */
  readonly bindingReused: boolean
  readonly pkceChallenge: string
  readonly pkceChallengeMethod: 'S256'
  readonly nonce: string | null
  readonly transaction: OAuthTransaction

  constructor(fields: {
    state: string
    browserBinding: string
    bindingReused: boolean
    pkceChallenge: string
    pkceChallengeMethod: 'S256'
    nonce: string | null
    transaction: OAuthTransaction
  }) {
    this.state = fields.state
    this.browserBinding = fields.browserBinding
    this.bindingReused = fields.bindingReused
    this.pkceChallenge = fields.pkceChallenge
    this.pkceChallengeMethod = fields.pkceChallengeMethod
    this.nonce = fields.nonce
    this.transaction = fields.transaction
    Object.freeze(this)
  }

  toJSON(): Record<string, unknown> {
    return {
      state: '[redacted]',
      browserBinding: '[redacted]',
      bindingReused: this.bindingReused,
      pkceChallenge: this.pkceChallenge,
      pkceChallengeMethod: this.pkceChallengeMethod,
      nonce: this.nonce === null ? null : '[redacted]',
      transaction: this.transaction.toJSON(),
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OAuthTransactionStart ${JSON.stringify(this.toJSON())}`
  }
}
