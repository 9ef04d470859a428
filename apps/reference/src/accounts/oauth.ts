import type { JWKSProvider } from '@portcullis/core/jwks'
import type { SecurityNoticeSource } from '@portcullis/core/local-accounts'
import { transactions } from '@portcullis/core/oauth'
import {
  discoverAuth0OidcProvider,
  discoverGoogleOidcProvider,
  discoverKeycloakOidcProvider,
  discoverMicrosoftOidcProvider,
  discoverOidcProvider,
  discoverOktaOidcProvider,
  GitHubOAuthProvider,
  OAuthLifecycleService,
  type OAuthProviderRegistration,
  OIDCDiscoveryClient,
} from '@portcullis/core/oidc'
import type { StepUpService } from '@portcullis/core/step-up'
import type { PostgresAccountStore, PostgresClient, PostgresOAuthAccountStore } from '@portcullis/postgres'
import { PostgresOAuthTransactionStore } from '@portcullis/postgres'
import { DEMO_IDP_CALLBACK_PATH, DEMO_IDP_CLIENT_ID } from '../demo-idp/provider.js'
import type { ProviderSettings } from '../providers/provider-settings.js'
import type { KeyMaterial } from '../secrets/key-material.js'

/** The demo IdP's provider name: its routes are `/auth/oauth/demo/...`. */
export const DEMO_PROVIDER = 'demo'
/** Where the OAuth callbacks may send the browser back to. */
export const RETURN_PATHS = [
  '/',
  '/account',
  // The confirmation pages that a fresh login at the demo IdP confirms (step 1, then step 2 there).
  '/account/confirm/password-add',
  '/account/confirm/delete-account',
  '/tenants',
  '/keys',
  // An authorization of an MCP client waiting for this sign-in (see oauth-server/resume.ts).
  '/connect/resume',
] as const
/**
 * What the demo IdP may confirm by a fresh login (`max_age=0`): for an account it created (no password),
 * adding a password and deleting the account.
 */
export const DEMO_REAUTHENTICATION = {
  'password-add': { maxAge: 0 },
  'delete-account': { maxAge: 0 },
} as const

export interface OAuthParts {
  readonly postgres: PostgresClient
  /** The one account store: each provider registration gets its view (`accountStore.oauth(...)`). */
  readonly accountStore: PostgresAccountStore
  readonly keys: KeyMaterial
  readonly publicOrigin: string
  readonly jwks: JWKSProvider
  readonly stepUp: StepUpService
  readonly idp?: { readonly issuer: string }
  readonly providers: readonly ProviderSettings[]
  /** Writes the notification of an identity linked or unlinked in the account store's transaction. */
  readonly securityNotices?: SecurityNoticeSource
}

/** The issuer each real provider kind announces (the discovery client allows exactly these). */
function issuerOf(settings: ProviderSettings): string | undefined {
  switch (settings.kind) {
    case 'google':
      return 'https://accounts.google.com'
    case 'microsoft':
      return `https://login.microsoftonline.com/${settings.tenant ?? 'common'}/v2.0`
    case 'okta':
      return `https://${settings.domain}${settings.authorizationServerId ? `/oauth2/${settings.authorizationServerId}` : ''}`
    case 'auth0':
      return `https://${settings.domain}/`
    case 'keycloak':
      return `${settings.baseUrl?.replace(/\/$/, '')}/realms/${settings.realm}`
    case 'github':
      return undefined
  }
}

/**
 * Origins a form of this app may end up at: the OAuth routes answer a form post with a redirect to the
 * provider, and browsers apply CSP `form-action` to every redirect of a form submission.
 */
export function providerOrigins(
  idp: { readonly issuer: string } | undefined,
  providers: readonly ProviderSettings[],
): readonly string[] {
  const origins = providers.map((settings): string => {
    switch (settings.kind) {
      case 'google':
        return 'https://accounts.google.com'
      case 'microsoft':
        return 'https://login.microsoftonline.com'
      case 'github':
        return 'https://github.com'
      case 'okta':
      case 'auth0':
        return `https://${settings.domain}`
      default:
        return new URL(settings.baseUrl ?? 'https://invalid').origin
    }
  })
  return [...new Set([...(idp === undefined ? [] : [new URL(idp.issuer).origin]), ...origins])]
}

/**
 * The OAuth lifecycle: the demo OpenID Provider (when it runs) and every real provider the environment
 * enables, each over its view of the one account store (tokens sealed by the protector), one transaction
 * store, the step-up service. A linked identity signs in to its account; an unknown identity of the demo
 * IdP creates a new account (sign up with the IdP), whose one sign-in method it is. Real providers only
 * sign in accounts they were linked to from the account page.
 */
export async function createOAuthLifecycle(parts: OAuthParts): Promise<
  | {
      readonly lifecycle: OAuthLifecycleService
      readonly accountsOf: (provider: string) => PostgresOAuthAccountStore | undefined
      close(): Promise<void>
    }
  | undefined
> {
  const { postgres: client, keys, publicOrigin } = parts
  const stores = new Map<string, PostgresOAuthAccountStore>()
  const storeFor = (provider: string, clientId: string) => {
    const store = parts.accountStore.oauth({ provider, clientId, protector: keys.protector })
    stores.set(provider, store)
    return store
  }
  const callbackOf = (provider: string) => `${publicOrigin}/auth/oauth/${provider}/callback`
  const registrations: OAuthProviderRegistration[] = []
  const discoveries: OIDCDiscoveryClient[] = []
  if (parts.idp !== undefined) {
    const discovery = new OIDCDiscoveryClient({ allowedIssuers: [parts.idp.issuer], allowLoopback: true })
    discoveries.push(discovery)
    const provider = await discoverOidcProvider({
      name: DEMO_PROVIDER,
      issuer: parts.idp.issuer,
      clientId: DEMO_IDP_CLIENT_ID,
      clientSecret: keys.demoIdp.clientSecret,
      discovery,
      jwks: parts.jwks,
      scopes: ['openid', 'profile', 'email'],
      timeoutMs: 5000,
    })
    registrations.push({
      provider,
      accounts: storeFor(DEMO_PROVIDER, DEMO_IDP_CLIENT_ID),
      redirectUri: `${publicOrigin}${DEMO_IDP_CALLBACK_PATH}`,
      provisionUnknown: true,
      reauthentication: DEMO_REAUTHENTICATION,
      postLogoutRedirectUri: `${publicOrigin}/`,
    })
  }
  for (const settings of parts.providers) {
    const name = settings.kind
    const common = { clientId: settings.clientId, clientSecret: settings.clientSecret, jwks: parts.jwks }
    const issuer = issuerOf(settings) ?? ''
    // GitHub is plain OAuth (no discovery); every OIDC provider gets a client allowing its issuer only.
    const discovery = new OIDCDiscoveryClient({ allowedIssuers: [issuer || 'https://github.com'] })
    discoveries.push(discovery)
    const provider =
      settings.kind === 'github'
        ? new GitHubOAuthProvider({ clientId: settings.clientId, clientSecret: settings.clientSecret })
        : settings.kind === 'google'
          ? await discoverGoogleOidcProvider({ ...common, discovery })
          : settings.kind === 'microsoft'
            ? await discoverMicrosoftOidcProvider({
                ...common,
                discovery,
                tenant: settings.tenant ?? 'common',
              })
            : settings.kind === 'okta'
              ? await discoverOktaOidcProvider({
                  ...common,
                  discovery,
                  domain: settings.domain ?? '',
                  ...(settings.authorizationServerId === undefined
                    ? {}
                    : { authorizationServerId: settings.authorizationServerId }),
                })
              : settings.kind === 'auth0'
                ? await discoverAuth0OidcProvider({ ...common, discovery, domain: settings.domain ?? '' })
                : await discoverKeycloakOidcProvider({
                    ...common,
                    discovery,
                    baseUrl: settings.baseUrl ?? '',
                    realm: settings.realm ?? '',
                  })
    registrations.push({
      provider,
      accounts: storeFor(name, settings.clientId),
      redirectUri: callbackOf(name),
      provisionUnknown: false,
    } as OAuthProviderRegistration)
  }
  // No provider at all (the demo IdP turned off, none configured): no OAuth routes, local accounts only.
  if (registrations.length === 0) return undefined
  const transactionStore = new PostgresOAuthTransactionStore({ client, protector: keys.protector })
  const lifecycle = new OAuthLifecycleService({
    registrations,
    transactions: new transactions.OAuthTransactionService({
      store: transactionStore,
      pepper: keys.oauthTransactionPepper,
      redirects: new transactions.OAuthRedirectPolicy({
        callbackUris: Object.fromEntries(
          registrations.map((registration) => [registration.provider.name, [registration.redirectUri]]),
        ),
        returnTo: [...RETURN_PATHS],
        allowInsecureLocalhost: /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(publicOrigin),
      }),
    }),
    transactionStore,
    stepUp: parts.stepUp,
    ...(parts.securityNotices === undefined ? {} : { securityNotices: parts.securityNotices }),
  })
  return {
    lifecycle,
    accountsOf: (provider) => stores.get(provider),
    async close() {
      await lifecycle.close()
      for (const discovery of discoveries) discovery.close()
    },
  }
}
