import type { default as Provider, KoaContextWithOIDC as ProviderContext } from 'oidc-provider'
import type { ReferenceSecrets } from '../secrets/secrets.js'
import { DEMO_ACR_VALUES, DEMO_IDP_PEOPLE } from './login-page.js'
import { PLAYGROUND_CLIENT_ID } from './playground.js'

/** The client id of the reference app at the demo IdP (its secret is in the secrets). */
export const DEMO_IDP_CLIENT_ID = 'portcullis-reference'
/** Where the OAuth routes receive the demo IdP's callbacks (`{base}/auth/oauth/{provider}/callback`). */
export const DEMO_IDP_CALLBACK_PATH = '/auth/oauth/demo/callback'

export interface DemoProviderOptions {
  readonly issuer: string
  readonly secrets: ReferenceSecrets['demoIdp']
  /** The app's origins: its callback and post-logout URIs are registered for each. */
  readonly appOrigins: readonly string[]
  readonly playgroundRedirectUri: string
}

/**
 * Runs `work` with oidc-provider's console notices held back (its Node.js version advice and the note that
 * sessions live in memory): both are expected for a local demo IdP, which the app's console describes.
 */
export function quietly<T>(work: () => T): T {
  const { warn, info } = console
  const filter =
    (original: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      if (typeof args[0] !== 'string' || !args[0].includes('oidc-provider ')) original(...args)
    }
  console.warn = filter(warn)
  console.info = filter(info)
  const restore = () => {
    console.warn = warn
    console.info = info
  }
  try {
    const result = work()
    if (result instanceof Promise) return result.finally(restore) as T
    restore()
    return result
  } catch (error) {
    restore()
    throw error
  }
}

/**
 * The oidc-provider configuration: two clients (the app, confidential; the IdP's playground, public), the
 * demo users as accounts, consent implied, PKCE required, `acr`/`amr`/`auth_time` in the ID token.
 */
export async function createDemoProvider(options: DemoProviderOptions): Promise<Provider> {
  const OidcProvider = await quietly(async () => (await import('oidc-provider')).default)
  return quietly(
    () =>
      new OidcProvider(options.issuer, {
        clients: [
          {
            client_id: DEMO_IDP_CLIENT_ID,
            client_secret: options.secrets.clientSecret,
            redirect_uris: options.appOrigins.map((origin) => `${origin}${DEMO_IDP_CALLBACK_PATH}`),
            post_logout_redirect_uris: options.appOrigins.map((origin) => `${origin}/`),
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
            require_auth_time: true,
          },
          {
            client_id: PLAYGROUND_CLIENT_ID,
            redirect_uris: [options.playgroundRedirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
            require_auth_time: true,
          },
        ],
        jwks: { keys: [options.secrets.signingKey] },
        cookies: { keys: [...options.secrets.cookieKeys] },
        acrValues: [...DEMO_ACR_VALUES],
        claims: {
          acr: null,
          amr: null,
          auth_time: null,
          sid: null,
          openid: ['sub', 'amr'],
          email: ['email', 'email_verified'],
          profile: ['name', 'preferred_username'],
        },
        scopes: ['openid', 'offline_access', 'email', 'profile'],
        pkce: { required: () => true },
        findAccount: async (_context: unknown, id: string) => {
          const user = DEMO_IDP_PEOPLE.find((candidate) => candidate.username === id)
          if (user === undefined) return undefined
          return {
            accountId: id,
            claims: async () => ({
              sub: id,
              name: user.displayName,
              preferred_username: id,
              email: `${id}@demo.portcullis.invalid`,
              email_verified: true,
            }),
          }
        },
        interactions: {
          url: (_context: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
        },
        // Consent is implied for the demo clients: grant what they asked for.
        loadExistingGrant: async (context: ProviderContext) => {
          const oidc = context.oidc
          if (oidc?.client === undefined || oidc.session?.accountId === undefined) return undefined
          const { Grant } = oidc.provider
          const existing = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId)
          const grant =
            (existing === undefined ? undefined : await Grant.find(existing)) ??
            new Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId })
          grant.addOIDCScope(String(oidc.params?.scope ?? 'openid'))
          await grant.save()
          return grant
        },
        issueRefreshToken: async () => true,
        // amr and acr travel in the ID token, as most IdPs send them.
        conformIdTokenClaims: false,
        ttl: {
          AccessToken: 3600,
          AuthorizationCode: 60,
          Grant: 86_400,
          IdToken: 3600,
          Interaction: 600,
          RefreshToken: 86_400,
          Session: 86_400,
        },
        features: {
          devInteractions: { enabled: false },
          revocation: { enabled: true },
          rpInitiatedLogout: { enabled: true },
          pushedAuthorizationRequests: { enabled: true },
        },
      }),
  )
}
