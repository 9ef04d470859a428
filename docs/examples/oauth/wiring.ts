// OAuth / OIDC sign-in and linking over Express, on the one account model: Google and GitHub sign in to
// the same accounts as passwords do, a first sign-in creates the account, and password step-up, adding
// and removing the password and deleting the account are routes too.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { AccountService } from '@portcullis/core/accounts'
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
  createAccountRoutes,
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
} from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
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

// #region wiring-2
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

// The stores (every one is one transaction per operation; the memory ones work the same in one process).
const accountStore = new PostgresAccountStore({ client: database })
const sessions = new PostgresSessionStore({ client: database })
const rateLimits = new PostgresRateLimitStore({ client: database })
const stepUpStore = new PostgresStepUpStore({ client: database })
const transactionStore = new PostgresOAuthTransactionStore({ client: database, protector })
// One LISTEN connection per instance: a sign-out anywhere reaches every instance's session cache.
const notices = new PostgresRevocationNotices({ client: database })
await notices.start()
// #endregion wiring-2

// docs:oauth-wiring:start
// #region wiring
const stepUp = new StepUpService({ store: stepUpStore })

const lifecycle = new OAuthLifecycleService({
  registrations: [
    {
      provider: google,
      // Google's view of the one account store: its identities are sign-in methods of these accounts.
      accounts: accountStore.oauth({ provider: google.name, clientId: google.clientId, protector }),
      redirectUri: `${ORIGIN}/auth/oauth/google/callback`,
      // A first sign-in creates the account, with this identity as its one sign-in method.
      provisionUnknown: true,
      // Purposes Google may reauthenticate for (max_age=0 forces a fresh login there).
      reauthentication: {
        'delete-account': { maxAge: 0 },
        'password-add': { maxAge: 300 },
        'oauth-unlink': { maxAge: 300 },
      },
      postLogoutRedirectUri: `${ORIGIN}/`,
    },
    {
      // GitHub has no signed auth_time: sign-in and linking only, never reauthentication.
      provider: github,
      accounts: accountStore.oauth({ provider: github.name, clientId: github.clientId, protector }),
      redirectUri: `${ORIGIN}/auth/oauth/github/callback`,
      provisionUnknown: true,
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

// Passwords and sessions of the same accounts: one account store, no second one to keep in step.
const local = new LocalAccounts({
  profile: 'session',
  accounts: accountStore,
  sessions,
  rateLimits,
  hasher: argon2idPasswordHasher(),
  registration: 'open',
  publicOrigin: ORIGIN,
  passwordScreen: commonPasswordScreen(),
  revocation: { notices },
})

const security = createSecurity({
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

const oauthRoutes = createOAuthRoutes({
  security,
  lifecycle,
  // The signed-in user of link, scopes, unlink, revoke, logout, revalidate and reauthenticate.
  currentSession: currentLocalSession(security),
  // After a verified login (a first one included): a real local session, fixation-safe.
  // The provider session (`identity`: issuer, subject, sid) goes into its handle for back-channel logout.
  // #region provider-session
  signIn: async ({ accountId, identity, provisioned }, request, response) => {
    const signIn = await localRoutes.establishSignIn(request, response, {
      accountId,
      providerSession: identity,
    })
    // #endregion provider-session
    // `provisioned`: this sign-in created the account; start your onboarding here.
    // JSON clients see what this returns; never return the session id itself.
    return signIn.transport === 'session' ? { csrfToken: signIn.csrfToken, provisioned } : undefined
  },
  // An unlink ends every session of the account (the epoch moves); the caller gets a fresh one.
  renewSignIn: (change, request, response) => localRoutes.renewSignIn(request, response, change),
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
  // #region back-channel-logout
  backchannelLogout: new BackchannelLogout({
    lifecycle,
    revokeSessions: (match) => local.revokeProviderSessions(match),
    // Used jti's, shared by every instance: a replayed logout token is refused everywhere.
    replay: rateLimits,
  }),
  // #endregion back-channel-logout
})

// Password step-up, the account's sign-in methods, adding and removing the password, deleting it all.
// The lifecycle stages the revocation of retained provider tokens before an account is deleted.
const accountRoutes = createAccountRoutes({
  security,
  local,
  service: new AccountService({ accounts: accountStore, local, stepUp, providerTokens: lifecycle }),
})

const app: express.Express = express()
app.use(security.middleware)
app.use(localRoutes) // the CSRF guard runs before the other routes' unsafe methods
app.use(oauthRoutes)
app.use(accountRoutes)

// #endregion wiring

// docs:oauth-wiring:end

export { app, lifecycle, security }
