// OAuth / OIDC sign-in and linking over Express, on the one account model: Google and GitHub sign in to
// the same accounts as passwords do, a first sign-in creates the account, and password step-up, adding
// and removing the password and deleting the account are routes too (the wiring: oauth-wiring.ts).
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { discoverGoogleOidcProvider, GitHubOAuthProvider, OIDCDiscoveryClient } from '@portcullis/core/oidc'
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
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
import { wireOAuth } from './oauth-wiring.js'

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

const { app, lifecycle, security } = wireOAuth(
  { accountStore, sessions, rateLimits, stepUpStore, transactionStore, notices },
  { google, github, protector },
)

export { app, lifecycle, security }
