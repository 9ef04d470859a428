import { ConfigurationError } from '../errors/portcullis-error.js'
import type { OAuthAccountStore } from '../oauth/accounts/port.js'
import { OAuthAccountService } from '../oauth/accounts/service.js'
import type { GitHubOAuthProvider } from './github.js'
import type { OIDCProvider } from './oidc-provider.js'
import type { OAuthIdentityProvider } from './provider-types.js'
import {
  type OIDCReauthenticationPolicy,
  type OIDCReauthenticationRequirement,
  validateReauthenticationPolicy,
} from './reauthentication.js'

interface RegistrationCommon {
  /** The provider's account store (its `provider` and `clientId` must match the provider's). */
  readonly accounts: OAuthAccountStore
  /** The exact callback URI registered at the provider (and allow-listed in the redirect policy). */
  readonly redirectUri: string
  /** Scopes of every request. Default: the provider's default scopes. */
  readonly scopes?: readonly string[]
  /** Scopes a scope upgrade may add. Default: `scopes` only. */
  readonly allowedScopes?: readonly string[]
  /** Keep provider tokens (encrypted) after login, link and scope upgrade. Default false. */
  readonly retainTokens?: boolean
  /** Create a local account for an unknown identity at login. Default false. */
  readonly provisionUnknown?: boolean
  /** Where the provider sends the browser after RP-initiated logout; enables `logout()`'s URL. */
  readonly postLogoutRedirectUri?: string
}

/** An OpenID Connect registration; only these can reauthenticate. */
export interface OIDCProviderRegistration extends RegistrationCommon {
  readonly provider: OIDCProvider
  /** Purposes this provider may reauthenticate for, with their requirements. */
  readonly reauthentication?: OIDCReauthenticationPolicy
}

/** A plain OAuth registration (GitHub): it has no signed `auth_time`, so it cannot carry a reauthentication policy. */
export interface GitHubProviderRegistration extends RegistrationCommon {
  readonly provider: GitHubOAuthProvider
  readonly reauthentication?: never
}

export type OAuthProviderRegistration = OIDCProviderRegistration | GitHubProviderRegistration

/** A validated registration, as the lifecycle service uses it. */
export interface Registration {
  readonly name: string
  readonly provider: OAuthIdentityProvider
  readonly accounts: OAuthAccountStore
  readonly tokens: OAuthAccountService
  readonly redirectUri: string
  readonly scopes: readonly string[]
  readonly allowedScopes: ReadonlySet<string>
  readonly retainTokens: boolean
  readonly provisionUnknown: boolean
  readonly postLogoutRedirectUri: string | undefined
  readonly reauthentication: ReadonlyMap<string, Required<OIDCReauthenticationRequirement>>
}

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/

function refuse(code: string, message: string): ConfigurationError {
  return new ConfigurationError(`oidc.registration.${code}`, message)
}

function scopeList(value: unknown, what: string): string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((scope) => typeof scope === 'string' && SCOPE.test(scope))
  ) {
    throw refuse('scopes_invalid', `${what} must be a non-empty list of scope tokens`)
  }
  return [...new Set(value as string[])].sort()
}

/** Checks one registration at startup; `ConfigurationError` for anything inconsistent. */
export function validateRegistration(
  input: OAuthProviderRegistration,
  stepUpTtlSeconds: number,
  clock: () => Date,
): Registration {
  const provider = input?.provider as OAuthIdentityProvider | undefined
  if (provider === undefined || typeof provider.completeAuthorization !== 'function') {
    throw refuse('provider_required', 'a registration needs a provider')
  }
  const accounts = input.accounts
  if (typeof accounts?.login !== 'function' || typeof accounts.getTokens !== 'function') {
    throw refuse('accounts_required', 'a registration needs an OAuthAccountStore')
  }
  if (accounts.provider !== provider.name || accounts.clientId !== provider.clientId) {
    throw refuse('accounts_mismatch', `the account store is not the one of provider ${provider.name}`)
  }
  if (typeof input.redirectUri !== 'string' || input.redirectUri.length === 0) {
    throw refuse('redirect_uri_required', 'redirectUri is required')
  }
  const reauthentication = (input as { reauthentication?: unknown }).reauthentication
  if (reauthentication !== undefined && provider.kind !== 'oidc') {
    throw refuse(
      'reauthentication_unsupported',
      `provider ${provider.name} has no signed auth_time and cannot reauthenticate`,
    )
  }
  const scopes = scopeList(input.scopes ?? provider.defaultScopes, 'scopes')
  if (provider.kind === 'oidc' && !scopes.includes('openid')) {
    throw refuse('scopes_invalid', 'an OpenID Connect registration must request openid')
  }
  const allowed = new Set([...scopes, ...scopeList(input.allowedScopes ?? scopes, 'allowedScopes')])
  const post = input.postLogoutRedirectUri
  if (post !== undefined && (typeof post !== 'string' || !/^https?:\/\//.test(post))) {
    throw refuse('post_logout_invalid', 'postLogoutRedirectUri must be an absolute URL')
  }
  return Object.freeze({
    name: provider.name,
    provider,
    accounts,
    tokens: new OAuthAccountService({ store: accounts, tokenEndpoint: provider.tokenEndpoint, clock }),
    redirectUri: input.redirectUri,
    scopes: Object.freeze(scopes),
    allowedScopes: allowed,
    retainTokens: input.retainTokens === true,
    provisionUnknown: input.provisionUnknown === true,
    postLogoutRedirectUri: post,
    reauthentication:
      reauthentication === undefined
        ? new Map()
        : validateReauthenticationPolicy(reauthentication, stepUpTtlSeconds),
  })
}
