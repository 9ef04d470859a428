import * as client from 'openid-client'
import type { TokenEndpointClient } from '../oauth/accounts/token-endpoint.js'
import { callbackRejected } from './errors.js'
import { type IdTokenRules, verifyIdToken } from './id-token.js'
import { type VerifiedLogoutToken, verifyLogoutToken } from './logout-token.js'
import type { OIDCProviderMetadata } from './metadata.js'
import type { OutboundHttpClient } from './outbound-http.js'
import { mapProviderError } from './provider-errors.js'
import type {
  OAuthIdentityProvider,
  ProviderAuthorizationRequest,
  ProviderCallbackRequest,
  ProviderCallbackResult,
} from './provider-types.js'
import { refreshedTokens, tokenSetFrom } from './token-response.js'

/** Everything an `OIDCProvider` is built from; produced by `discoverOidcProvider` and the presets. */
export interface OIDCProviderInit {
  readonly name: string
  readonly metadata: OIDCProviderMetadata
  readonly configuration: client.Configuration
  readonly http: OutboundHttpClient
  readonly idToken: IdTokenRules
  readonly defaultScopes: readonly string[]
  readonly pushedAuthorizationRequests: boolean
  /** Extra authorization parameters a preset always sends (Google `access_type=offline`). */
  readonly extraParameters: Readonly<Record<string, string>>
}

const RESERVED = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'max_age',
  'prompt',
  'acr_values',
  'request',
  'request_uri',
])

/** Every parameter of the callback at most once; duplicates are a classic parameter-pollution trick. */
function singleValued(parameters: URLSearchParams): boolean {
  const seen = new Set<string>()
  for (const key of parameters.keys()) {
    if (seen.has(key)) return false
    seen.add(key)
  }
  return true
}

/**
 * An OpenID Connect provider (authorization code flow with PKCE S256, nonce, RFC 9207 `iss` checks and
 * PAR when required or enabled). All protocol work goes through openid-client; the ID token is then
 * verified again, signature included, with the application's shared `JWKSProvider`. The provider owns
 * only its HTTP client: `close()` never touches the shared discovery client or JWKS provider.
 */
export class OIDCProvider implements OAuthIdentityProvider {
  readonly kind = 'oidc' as const
  readonly usesNonce = true
  readonly name: string
  readonly issuer: string
  readonly clientId: string
  readonly metadata: OIDCProviderMetadata
  readonly defaultScopes: readonly string[]
  /** True when authorization requests are pushed (RFC 9126). */
  readonly pushedAuthorizationRequests: boolean
  readonly supportsRevocation: boolean
  readonly tokenEndpoint: TokenEndpointClient
  readonly #configuration: client.Configuration
  readonly #http: OutboundHttpClient
  readonly #idToken: IdTokenRules
  readonly #extra: Readonly<Record<string, string>>

  constructor(init: OIDCProviderInit) {
    this.name = init.name
    this.metadata = init.metadata
    this.issuer = init.metadata.issuer
    this.clientId = init.idToken.clientId
    this.defaultScopes = Object.freeze([...init.defaultScopes])
    this.pushedAuthorizationRequests = init.pushedAuthorizationRequests
    this.supportsRevocation = init.metadata.revocationEndpoint !== undefined
    this.#configuration = init.configuration
    this.#http = init.http
    this.#idToken = init.idToken
    this.#extra = init.extraParameters
    const configuration = init.configuration
    this.tokenEndpoint = {
      // No `scope` parameter: RFC 6749 section 6 keeps the original grant, and some providers refuse one.
      async refresh({ refreshToken }) {
        try {
          const response = await client.refreshTokenGrant(configuration, refreshToken)
          return { kind: 'refreshed', tokens: refreshedTokens(response) }
        } catch (error) {
          if (error instanceof client.ResponseBodyError && error.error === 'invalid_grant') {
            return { kind: 'invalid-grant' }
          }
          throw mapProviderError(error, 'refresh')
        }
      },
      async revoke({ token, tokenTypeHint }) {
        try {
          await client.tokenRevocation(configuration, token, { token_type_hint: tokenTypeHint })
        } catch (error) {
          throw mapProviderError(error, 'revocation')
        }
      },
    }
  }

  async authorizationUrl(request: ProviderAuthorizationRequest): Promise<string> {
    const parameters: Record<string, string> = {}
    for (const [key, value] of Object.entries(this.#extra)) if (!RESERVED.has(key)) parameters[key] = value
    Object.assign(parameters, {
      redirect_uri: request.redirectUri,
      scope: request.scopes.join(' '),
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    })
    if (request.nonce !== null) parameters.nonce = request.nonce
    if (request.maxAge !== undefined) parameters.max_age = String(request.maxAge)
    if (request.prompt !== undefined) parameters.prompt = request.prompt
    if (request.acrValues !== undefined && request.acrValues.length > 0) {
      parameters.acr_values = request.acrValues.join(' ')
    }
    if (!this.pushedAuthorizationRequests) {
      return client.buildAuthorizationUrl(this.#configuration, parameters).href
    }
    try {
      return (await client.buildAuthorizationUrlWithPAR(this.#configuration, parameters)).href
    } catch (error) {
      throw mapProviderError(error, 'par')
    }
  }

  async completeAuthorization(request: ProviderCallbackRequest): Promise<ProviderCallbackResult> {
    const { parameters, transaction, state, now } = request
    if (!singleValued(parameters)) throw callbackRejected('duplicate-parameter')
    const iss = parameters.get('iss')
    if (iss !== null && iss !== this.metadata.documentIssuer) throw callbackRejected('iss-mismatch')
    if (iss === null && this.metadata.authorizationResponseIssParameterSupported) {
      throw callbackRejected('iss-missing')
    }
    if (parameters.has('error')) throw callbackRejected('authorization-error')
    if (transaction.nonce === null) throw callbackRejected('nonce-missing')
    const callbackUrl = new URL(transaction.redirectUri)
    callbackUrl.search = parameters.toString()
    let response: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
    try {
      response = await client.authorizationCodeGrant(this.#configuration, callbackUrl, {
        pkceCodeVerifier: transaction.pkceVerifier,
        expectedState: state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      })
    } catch (error) {
      throw mapProviderError(error, 'token')
    }
    if (typeof response.id_token !== 'string') throw callbackRejected('id-token-missing')
    const verified = await verifyIdToken(response.id_token, this.#idToken, {
      nonce: transaction.nonce,
      notBefore: transaction.createdAt,
      now,
    })
    const { tokens, grantedScopes } = tokenSetFrom(response, transaction.requestedScopes, now)
    return {
      identity: Object.freeze({
        provider: this.name,
        issuer: verified.issuer,
        subject: verified.subject,
        ...(verified.email === undefined ? {} : { email: verified.email }),
        emailVerified: verified.emailVerified,
        ...(verified.name === undefined ? {} : { displayName: verified.name }),
        ...(verified.authTime === undefined ? {} : { authTime: new Date(verified.authTime * 1000) }),
        ...(verified.acr === undefined ? {} : { acr: verified.acr }),
        amr: verified.amr,
        ...(verified.sessionId === undefined ? {} : { sessionId: verified.sessionId }),
      }),
      tokens,
      grantedScopes,
    }
  }

  /**
   * Verifies an OpenID Connect Back-Channel Logout token of this provider (signature with its JWKS,
   * issuer, audience, `iat` within `maxAgeSeconds`, events, no nonce, `sub` and/or `sid`); see
   * `verifyLogoutToken`. Replay is the caller's to refuse.
   */
  verifyLogoutToken(
    token: unknown,
    options: { readonly now: Date; readonly maxAgeSeconds: number },
  ): Promise<VerifiedLogoutToken> {
    return verifyLogoutToken(token, this.#idToken, options)
  }

  endSessionUrl(request: {
    readonly postLogoutRedirectUri: string
    readonly idTokenHint?: string
    readonly state?: string
  }): string | null {
    if (this.metadata.endSessionEndpoint === undefined) return null
    const parameters: Record<string, string> = {
      post_logout_redirect_uri: request.postLogoutRedirectUri,
      client_id: this.clientId,
    }
    if (request.idTokenHint !== undefined) parameters.id_token_hint = request.idTokenHint
    if (request.state !== undefined) parameters.state = request.state
    return client.buildEndSessionUrl(this.#configuration, parameters).href
  }

  async close(): Promise<void> {
    this.#http.close()
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, name: this.name, issuer: this.issuer, clientId: this.clientId }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OIDCProvider ${JSON.stringify(this.toJSON())}`
  }
}
