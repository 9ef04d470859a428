import type { LinkedProviderAccount } from '../oauth/accounts/records.js'
import type { OAuthOperation } from '../oauth/transactions/transaction.js'
import type { StepUpCredential } from '../step-up/credential.js'
import type { VerifiedProviderIdentity } from './provider-types.js'

/**
 * The local side of a signed-in user, captured when an operation begins and supplied again when it
 * completes. `securityEpoch` and `sessionHandle` are opaque to this module: the epoch must be unchanged
 * (a password change in between refuses the operation) and the transaction is bound to the session
 * handle (another session cannot complete it).
 */
export interface LocalSession {
  readonly accountId: string
  readonly securityEpoch: number
  /** A stable handle of the current local session (a session id digest, a token `jti`). */
  readonly sessionHandle: string
}

interface BeginCommon {
  /** The registration name. */
  readonly provider: string
  /** Allow-listed target for after the callback. Default `/`. */
  readonly returnTo?: string
  /** The binding cookie the request carried, if any; a malformed one is ignored and replaced. */
  readonly browserBinding?: string | undefined
}

/** Starting a round trip to the provider. Each operation says what it needs. */
export type BeginOAuthInput =
  | (BeginCommon & {
      readonly operation: 'login'
      /**
       * Optional: bind the login to the browser's current session handle (signed-in or anonymous). The
       * callback must then present the same handle. Omit it when the callback will not have a session.
       */
      readonly session?: { readonly sessionHandle: string }
    })
  | (BeginCommon & {
      readonly operation: 'link'
      readonly session: LocalSession
      /** A step-up credential of purpose `oauth-link`, consumed here. */
      readonly stepUpToken: string
    })
  | (BeginCommon & {
      readonly operation: 'scope-upgrade'
      readonly session: LocalSession
      /** A step-up credential of purpose `oauth-scope-upgrade`, consumed after the request checks pass. */
      readonly stepUpToken: string
      /** Scopes to add; must be allow-listed and not all granted already. */
      readonly scopes: readonly string[]
    })
  | (BeginCommon & { readonly operation: 'revalidate'; readonly session: LocalSession })
  | (BeginCommon & {
      readonly operation: 'reauthenticate'
      readonly session: LocalSession
      /** A purpose of the registration's `OIDCReauthenticationPolicy`. */
      readonly purpose: string
    })

/** What an HTTP adapter needs to answer a begin: redirect the browser and set the binding cookie. */
export class OAuthBeginResult {
  readonly operation: OAuthOperation
  readonly provider: string
  /** The provider's authorization URL (or the PAR `request_uri` form). */
  readonly redirectUrl: string
  /** The value for the browser-binding cookie (secret: redacted from JSON and inspect). */
  readonly browserBinding: string
  /** False when the request's own well-formed cookie was reused. */
  readonly setBindingCookie: boolean
  /** The transaction's expiry; a sensible `Max-Age` for the cookie. */
  readonly expiresAt: Date

  constructor(fields: Omit<OAuthBeginResult, 'toJSON'>) {
    this.operation = fields.operation
    this.provider = fields.provider
    this.redirectUrl = fields.redirectUrl
    this.browserBinding = fields.browserBinding
    this.setBindingCookie = fields.setBindingCookie
    this.expiresAt = fields.expiresAt
    Object.freeze(this)
  }

  toJSON(): Record<string, unknown> {
    return {
      operation: this.operation,
      provider: this.provider,
      redirectUrl: this.redirectUrl,
      browserBinding: '[redacted]',
      setBindingCookie: this.setBindingCookie,
      expiresAt: this.expiresAt.toISOString(),
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OAuthBeginResult ${JSON.stringify(this.toJSON())}`
  }
}

export interface CompleteOAuthInput {
  readonly provider: string
  /** The callback URL as received, or just its query (`?code=...&state=...&iss=...`). */
  readonly callback: string | URL | URLSearchParams
  /** The binding cookie's value (undefined when the request had none). */
  readonly browserBinding: string | undefined
  /** When given, a transaction of another operation is refused (and burned). */
  readonly expectedOperation?: OAuthOperation
  /**
   * The session exactly as given at begin: required for every operation but login (where it is only
   * needed when begin bound one). A different handle burns the transaction; a different account or a
   * changed security epoch refuses the operation.
   */
  readonly session?: LocalSession | { readonly sessionHandle: string }
}

interface OutcomeCommon {
  readonly provider: string
  readonly accountId: string
  readonly providerAccountId: string
  /** The allow-listed target recorded at begin. */
  readonly returnTo: string
}

export type OAuthCallbackOutcome =
  | (OutcomeCommon & {
      readonly operation: 'login'
      /** True when the account was created by this login. */
      readonly provisioned: boolean
      readonly identity: VerifiedProviderIdentity
      readonly link: LinkedProviderAccount
    })
  | (OutcomeCommon & {
      readonly operation: 'link'
      readonly status: 'linked' | 'relinked'
      readonly identity: VerifiedProviderIdentity
      readonly link: LinkedProviderAccount
    })
  | (OutcomeCommon & { readonly operation: 'scope-upgrade'; readonly scopes: readonly string[] })
  /** Proves control of the linked identity only: no freshness, no credential, nothing refreshed. */
  | (OutcomeCommon & { readonly operation: 'revalidate' })
  | (OutcomeCommon & {
      readonly operation: 'reauthenticate'
      readonly purpose: string
      /** One use, bound to account, purpose, security epoch and session; `reveal()` once to the client. */
      readonly credential: StepUpCredential
    })

/** Step-up purposes the lifecycle consumes. */
export const OAUTH_STEP_UP_PURPOSES = Object.freeze({
  link: 'oauth-link',
  scopeUpgrade: 'oauth-scope-upgrade',
  unlink: 'oauth-unlink',
  tokenManagement: 'oauth-provider-token-management',
} as const)
