// OAuth / OIDC sign-in and linking over Express: shared discovery and JWKS, two providers (Google and
// GitHub), Postgres stores, the lifecycle, and the generated routes wired to local-account sessions.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { AuthorizationSnapshot, stepUpVerifierFor } from '@portcullis/core/authorization'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { clearSessionCookie, LocalAccounts } from '@portcullis/core/local-accounts'
import { transactions } from '@portcullis/core/oauth'
import {
  BackchannelLogout,
  discoverGoogleOidcProvider,
  GitHubOAuthProvider,
  OAuthLifecycleService,
  OIDCDiscoveryClient,
} from '@portcullis/core/oidc'
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { StepUpService } from '@portcullis/core/step-up'
import {
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
} from '@portcullis/express'
import {
  createPostgresClient,
  migrate,
  PostgresLocalAccountStore,
  PostgresOAuthAccountStore,
  PostgresOAuthTransactionStore,
  PostgresRateLimitStore,
  PostgresRevocationNotices,
  PostgresSessionStore,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import express from 'express'

const ORIGIN = 'https://app.example'
const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(database)

// Key material from your secret store; the same on every instance.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: loadOAuthTransactionProtectorKey({
    version: '2031-03',
    material: process.env.PORTCULLIS_OAUTH_KEY,
    encoding: 'base64',
  }),
})

// Owned by the application, shared by every provider; closing a provider never closes them.
const discovery = new OIDCDiscoveryClient({
  allowedIssuers: ['https://accounts.google.com'],
  allowedJwksOrigins: ['https://www.googleapis.com'],
  allowedEndpointOrigins: ['https://oauth2.googleapis.com', 'https://openidconnect.googleapis.com'],
})
const jwks = new CachedJWKSProvider()

const google = await discoverGoogleOidcProvider({
  clientId: process.env.GOOGLE_CLIENT_ID ?? '',
  clientSecret: process.env.GOOGLE_CLIENT_SECRET ?? '',
  discovery,
  jwks,
})
const github = new GitHubOAuthProvider({
  clientId: process.env.GITHUB_CLIENT_ID ?? '',
  clientSecret: process.env.GITHUB_CLIENT_SECRET ?? '',
})

const transactionStore = new PostgresOAuthTransactionStore({ client: database, protector })
const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client: database }) })

export const lifecycle = new OAuthLifecycleService({
  registrations: [
    {
      provider: google,
      accounts: new PostgresOAuthAccountStore({
        client: database,
        provider: google.name,
        clientId: google.clientId,
        protector,
      }),
      redirectUri: `${ORIGIN}/auth/oauth/google/callback`,
      provisionUnknown: true,
      // Purposes Google may reauthenticate for (max_age=0 forces a fresh login there).
      reauthentication: {
        'delete-account': { maxAge: 0 },
        'change-email': { maxAge: 300 },
      },
      postLogoutRedirectUri: `${ORIGIN}/`,
    },
    {
      // GitHub has no signed auth_time: sign-in and linking only, never reauthentication.
      provider: github,
      accounts: new PostgresOAuthAccountStore({
        client: database,
        provider: github.name,
        clientId: github.clientId,
        protector,
      }),
      redirectUri: `${ORIGIN}/auth/oauth/github/callback`,
    },
  ],
  transactions: new transactions.OAuthTransactionService({
    store: transactionStore,
    // HMAC key of state and binding digests; the same on every instance.
    pepper: Buffer.from(process.env.PORTCULLIS_OAUTH_PEPPER ?? '', 'base64'),
    redirects: new transactions.OAuthRedirectPolicy({
      callbackUris: {
        google: [`${ORIGIN}/auth/oauth/google/callback`],
        github: [`${ORIGIN}/auth/oauth/github/callback`],
      },
      returnTo: ['/', '/settings', '/settings/security'],
    }),
  }),
  // Lets a callback whose token request never left this process be retried (IdP unreachable).
  transactionStore,
  stepUp,
})

// One LISTEN connection per instance: a sign-out anywhere reaches every instance's session cache.
const notices = new PostgresRevocationNotices({ client: database })
await notices.start()
const rateLimits = new PostgresRateLimitStore({ client: database })

const local = new LocalAccounts({
  profile: 'session',
  accounts: new PostgresLocalAccountStore({ client: database }),
  sessions: new PostgresSessionStore({ client: database }),
  rateLimits,
  hasher: argon2idPasswordHasher(),
  publicOrigin: ORIGIN,
  revocation: { notices },
})

export const security = createSecurity({
  mechanisms: local.mechanisms,
  stepUp: {
    // A credential is bound to the session it was issued to: the verifier derives that session from
    // the request's verified evidence, never from anything the client chose.
    verifier: stepUpVerifierFor(stepUp, (request) => {
      const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
      return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
    }),
  },
})

const localRoutes = localAccountRoutes({ local, security })

export const oauthRoutes = createOAuthRoutes({
  security,
  lifecycle,
  // The signed-in user of link, scopes, unlink, revoke, logout, revalidate and reauthenticate.
  currentSession: currentLocalSession(security),
  // After a verified login: a real local session (cookie set on the response, fixation-safe). The
  // provider session (`identity`: issuer, subject, sid) goes into its handle for back-channel logout.
  signIn: async ({ accountId, identity }, request, response) => {
    const signIn = await localRoutes.establishSignIn(request, response, {
      accountId,
      providerSession: identity,
    })
    // JSON clients see this; never return the session id itself.
    return signIn.transport === 'session' ? { csrfToken: signIn.csrfToken } : undefined
  },
  // POST logout: end the local session first, then the browser goes to the provider's end-session URL.
  signOut: async (session, request, response) => {
    await local.logout({
      accountId: session.accountId,
      credentials: local.credentialsOf(request.security?.evidence ?? []),
    })
    if (local.sessionCookie !== undefined) {
      response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
    }
  },
  // POST /auth/oauth/{provider}/backchannel-logout: register it as the client's backchannel_logout_uri.
  backchannelLogout: new BackchannelLogout({
    lifecycle,
    revokeSessions: (match) => local.revokeProviderSessions(match),
    // Used jti's, shared by every instance: a replayed logout token is refused everywhere.
    replay: rateLimits,
  }),
  events: (event) => {
    console.info('security event', event.type)
  },
})

export const app: express.Express = express()
app.use(security.middleware)
app.use(localRoutes) // the CSRF guard runs before the OAuth routes' unsafe methods
app.use(oauthRoutes)
