// Wiring the Postgres stores into an application: one pool, migrations at startup, the one account store
// with a view per provider registration, and the step-up store.
import {
  AESGCMOAuthTransactionProtector,
  accounts,
  loadOAuthTransactionProtectorKey,
  StepUpService,
} from '@portcullis/core'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRevocationNotices,
  PostgresStepUpStore,
} from '@portcullis/postgres'

function requiredEnv(name: string): string {
  const value = process.env[name]
  if (value === undefined || value.trim() === '') throw new Error(`${name} is required`)
  return value
}

// One pool per process. Every store of this package shares it.
// #region running-migrations
export const database = createPostgresClient({
  connectionString: requiredEnv('DATABASE_URL'),
  maxConnections: 10,
  statementTimeoutMs: 5_000,
})

// Safe on every instance at every start: one instance applies pending migrations under an advisory
// lock, the others wait for it and then find nothing to do.
const report = await migrate(database)
if (report.applied.length > 0) console.info(`schema migrated to version ${report.current}`)
// #endregion running-migrations

// One LISTEN connection per instance: revocations on any instance reach this one's caches. Pass it to
// LocalAccounts (`revocation.notices`) and ApiKeyService (`notices`); close it at shutdown.
// #region revocation-notices
export const notices = new PostgresRevocationNotices({ client: database })
await notices.start()
// #endregion revocation-notices

// The vault key comes from the environment or a secret store; every instance needs the same key.
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: loadOAuthTransactionProtectorKey({
    version: '2031-03',
    material: process.env.PORTCULLIS_VAULT_KEY,
    encoding: 'base64',
  }),
})

// One account store: passwords (for `LocalAccounts`) and the identities of every provider. Each provider
// registration gets its view, so an account's sign-in methods span every provider and the password, and
// the last-method rule holds across them.
// #region account-stores
export const accountStore = new PostgresAccountStore({ client: database })
export const googleAccounts = accountStore.oauth({
  provider: 'google',
  clientId: requiredEnv('GOOGLE_CLIENT_ID'),
  protector,
})
export const githubAccounts = accountStore.oauth({
  provider: 'github',
  clientId: requiredEnv('GITHUB_CLIENT_ID'),
  protector,
})

export const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client: database }) })
// #endregion account-stores

/** The provider's token endpoint client (see docs/examples/accounts/wiring.ts for one over fetch). */
declare const googleTokenEndpoint: accounts.TokenEndpointClient

export const googleTokens = new accounts.OAuthAccountService({
  store: googleAccounts,
  tokenEndpoint: googleTokenEndpoint,
})

// Close the pool last on shutdown, after the HTTP server stopped taking requests.
process.once('SIGTERM', () => {
  database.close().catch((error: unknown) => console.error('closing the database pool failed', error))
})
