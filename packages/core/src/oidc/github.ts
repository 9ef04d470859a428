import * as client from 'openid-client'
import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { TokenEndpointClient } from '../oauth/accounts/token-endpoint.js'
import { callbackRejected, OIDCProviderUnavailableError } from './errors.js'
import {
  defaultHostResolver,
  type HostResolver,
  type OIDCFetch,
  OutboundHttpClient,
} from './outbound-http.js'
import { mapProviderError } from './provider-errors.js'
import type {
  OAuthIdentityProvider,
  ProviderAuthorizationRequest,
  ProviderCallbackRequest,
  ProviderCallbackResult,
} from './provider-types.js'
import { refreshedTokens, tokenSetFrom } from './token-response.js'

export const GITHUB_ISSUER = 'https://github.com'
const AUTHORIZE = 'https://github.com/login/oauth/authorize'
const TOKEN = 'https://github.com/login/oauth/access_token'
const API = 'https://api.github.com'
const API_VERSION = '2022-11-28'
const COMMA_OR_SPACE = /[ ,]+/

export interface GitHubOAuthProviderOptions {
  /** Registration name. Default `github`. */
  readonly name?: string
  readonly clientId: string
  readonly clientSecret: string
  /** Default `read:user`. The user API's numeric id is all sign-in needs. */
  readonly scopes?: readonly string[]
  /** Outbound HTTP (github.com and api.github.com only); default the global `fetch`. */
  readonly fetch?: OIDCFetch
  readonly resolveHost?: HostResolver
  /** Per request, 100..60000 ms. Default 10000. */
  readonly timeoutMs?: number
}

const OPTIONS: OptionsShape<GitHubOAuthProviderOptions> = {
  name: { kind: 'string' },
  clientId: { required: true, kind: 'string' },
  clientSecret: { required: true, kind: 'string' },
  scopes: { kind: 'array' },
  fetch: { kind: 'function' },
  resolveHost: { kind: 'function' },
  timeoutMs: { kind: 'number', check: integerBetween(100, 60_000) },
}

/**
 * GitHub sign-in (plain OAuth 2.0, not OpenID Connect). The identity is GitHub's numeric user id from
 * the user API, recorded under the pseudo-issuer `https://github.com`; never the login name (renamable)
 * or an email address. GitHub issues no ID token and no signed `auth_time`: account selection there is
 * not fresh authentication, so this provider cannot reauthenticate (`kind: 'oauth'`; a registration that
 * tries is refused by the type checker and, failing that, at startup).
 */
export class GitHubOAuthProvider implements OAuthIdentityProvider {
  readonly kind = 'oauth' as const
  readonly usesNonce = false
  readonly supportsRevocation = true
  readonly issuer = GITHUB_ISSUER
  readonly name: string
  readonly clientId: string
  readonly defaultScopes: readonly string[]
  readonly tokenEndpoint: TokenEndpointClient
  readonly #configuration: client.Configuration
  readonly #http: OutboundHttpClient

  constructor(options: GitHubOAuthProviderOptions) {
    readOptions(options, 'GitHubOAuthProvider', OPTIONS)
    if (options.clientSecret.length === 0) {
      throw new ConfigurationError('oidc.provider.client_auth', 'GitHub needs a clientSecret')
    }
    this.name = options.name ?? 'github'
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(this.name)) {
      throw new ConfigurationError('oidc.provider.name_invalid', 'name must be 1-64 of a-z 0-9 _ -')
    }
    this.clientId = options.clientId
    this.defaultScopes = Object.freeze([...new Set(options.scopes ?? ['read:user'])])
    this.#http = new OutboundHttpClient(
      {
        allowLoopback: false,
        allowPrivateAddresses: false,
        allowedPorts: new Set([443]),
        timeoutMs: options.timeoutMs ?? 10_000,
        maxResponseBytes: 262_144,
        allowedOrigins: new Set([GITHUB_ISSUER, API]),
      },
      options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
      options.resolveHost ?? defaultHostResolver,
    )
    this.#configuration = new client.Configuration(
      { issuer: GITHUB_ISSUER, authorization_endpoint: AUTHORIZE, token_endpoint: TOKEN },
      options.clientId,
      { token_endpoint_auth_method: 'client_secret_post' },
      client.ClientSecretPost(options.clientSecret),
    )
    const http = this.#http
    this.#configuration[client.customFetch] = (url, init) => http.request(url, init as RequestInit)
    const configuration = this.#configuration
    const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')
    this.tokenEndpoint = {
      async refresh({ refreshToken }) {
        try {
          const response = await client.refreshTokenGrant(configuration, refreshToken)
          return { kind: 'refreshed', tokens: refreshedTokens(response, COMMA_OR_SPACE) }
        } catch (error) {
          if (error instanceof client.ResponseBodyError && error.error === 'invalid_grant') {
            return { kind: 'invalid-grant' }
          }
          throw mapProviderError(error, 'refresh')
        }
      },
      // GitHub's revocation is a REST call, not RFC 7009: DELETE /applications/{client_id}/token.
      async revoke({ token, tokenTypeHint }) {
        if (tokenTypeHint !== 'access_token') return
        const response = await http.request(
          `${API}/applications/${encodeURIComponent(options.clientId)}/token`,
          {
            method: 'DELETE',
            headers: {
              authorization: `Basic ${basic}`,
              accept: 'application/vnd.github+json',
              'content-type': 'application/json',
              'x-github-api-version': API_VERSION,
            },
            body: JSON.stringify({ access_token: token }),
          },
        )
        if (response.status !== 204 && response.status !== 404) {
          throw new OIDCProviderUnavailableError(false, { reason: 'revocation-status' })
        }
      },
    }
  }

  async authorizationUrl(request: ProviderAuthorizationRequest): Promise<string> {
    return client.buildAuthorizationUrl(this.#configuration, {
      redirect_uri: request.redirectUri,
      scope: request.scopes.join(' '),
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    }).href
  }

  async completeAuthorization(request: ProviderCallbackRequest): Promise<ProviderCallbackResult> {
    const { parameters, transaction, state, now } = request
    const keys = [...parameters.keys()]
    if (new Set(keys).size !== keys.length) throw callbackRejected('duplicate-parameter')
    if (parameters.has('error')) throw callbackRejected('authorization-error')
    const callbackUrl = new URL(transaction.redirectUri)
    callbackUrl.search = parameters.toString()
    let response: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
    try {
      response = await client.authorizationCodeGrant(this.#configuration, callbackUrl, {
        pkceCodeVerifier: transaction.pkceVerifier,
        expectedState: state,
      })
    } catch (error) {
      throw mapProviderError(error, 'token')
    }
    const { tokens, grantedScopes } = tokenSetFrom(response, transaction.requestedScopes, now, COMMA_OR_SPACE)
    const user = await this.#user(tokens.accessToken)
    return {
      identity: Object.freeze({
        provider: this.name,
        issuer: GITHUB_ISSUER,
        subject: user.id,
        emailVerified: false,
        ...(user.name === undefined ? {} : { displayName: user.name }),
        amr: Object.freeze([]),
      }),
      tokens,
      grantedScopes,
    }
  }

  /** `GET /user`: the numeric `id` is the subject; `login` is only a display fallback. */
  async #user(accessToken: string): Promise<{ id: string; name?: string }> {
    let response: Response
    try {
      response = await client.fetchProtectedResource(
        this.#configuration,
        accessToken,
        new URL(`${API}/user`),
        'GET',
        undefined,
        new Headers({ accept: 'application/vnd.github+json', 'x-github-api-version': API_VERSION }),
      )
    } catch (error) {
      throw mapProviderError(error, 'user')
    }
    if (response.status >= 500 || response.status === 429) {
      throw new OIDCProviderUnavailableError(false, { reason: 'user-status' })
    }
    if (response.status !== 200) throw callbackRejected('user-status')
    let body: unknown
    try {
      body = await response.json()
    } catch {
      throw callbackRejected('user-malformed')
    }
    const { id, login, name } = (body ?? {}) as { id?: unknown; login?: unknown; name?: unknown }
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw callbackRejected('user-id')
    const display =
      typeof name === 'string' && name !== '' ? name : typeof login === 'string' ? login : undefined
    return { id: String(id), ...(display === undefined || display.length > 256 ? {} : { name: display }) }
  }

  endSessionUrl(): null {
    return null
  }

  async close(): Promise<void> {
    this.#http.close()
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, name: this.name, issuer: this.issuer, clientId: this.clientId }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `GitHubOAuthProvider ${JSON.stringify(this.toJSON())}`
  }
}
