import type * as client from 'openid-client'
import type { TokenEndpointTokens } from '../oauth/accounts/token-endpoint.js'
import { ProviderTokenSet } from '../oauth/accounts/token-set.js'
import { callbackRejected } from './errors.js'

/** Used when a token response has no `expires_in` (GitHub OAuth apps): treat the token as short-lived. */
export const ASSUMED_TOKEN_LIFETIME_SECONDS = 3600
const MAX_EXPIRES_IN = 315_360_000
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/

/** `scope` of a token response: space-separated (RFC 6749), or comma-separated as GitHub sends it. */
export function parseScopes(value: unknown, separator: RegExp = / /): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') return undefined
  const scopes = value.split(separator).filter((scope) => scope !== '')
  return scopes.every((scope) => SCOPE_TOKEN.test(scope)) ? [...new Set(scopes)].sort() : undefined
}

export function expiresInSeconds(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) return ASSUMED_TOKEN_LIFETIME_SECONDS
  return Math.min(Math.floor(value), MAX_EXPIRES_IN)
}

/** Builds the retained token set from a verified authorization-code response. */
export function tokenSetFrom(
  response: client.TokenEndpointResponse,
  requestedScopes: readonly string[],
  now: Date,
  scopeSeparator?: RegExp,
): { tokens: ProviderTokenSet; grantedScopes: readonly string[] } {
  const granted =
    response.scope === undefined ? [...requestedScopes] : parseScopes(response.scope, scopeSeparator)
  if (granted === undefined) throw callbackRejected('token-scope')
  try {
    const tokens = new ProviderTokenSet({
      accessToken: response.access_token,
      tokenType: response.token_type,
      scopes: granted,
      expiresAt: new Date(now.getTime() + expiresInSeconds(response.expires_in) * 1000),
      refreshToken: response.refresh_token ?? null,
      idToken: response.id_token ?? null,
    })
    return { tokens, grantedScopes: tokens.scopes }
  } catch {
    throw callbackRejected('token-response')
  }
}

/** A refresh response in the shape `OAuthAccountService` expects. */
export function refreshedTokens(
  response: client.TokenEndpointResponse,
  scopeSeparator?: RegExp,
): TokenEndpointTokens {
  const scopes = parseScopes(response.scope, scopeSeparator)
  return {
    accessToken: response.access_token,
    tokenType: response.token_type,
    expiresIn: expiresInSeconds(response.expires_in),
    ...(scopes === undefined ? {} : { scopes }),
    ...(response.refresh_token === undefined ? {} : { refreshToken: response.refresh_token }),
    ...(response.id_token === undefined ? {} : { idToken: response.id_token }),
  }
}
