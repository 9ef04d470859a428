// The stores, once per process: the Postgres stores when DATABASE_URL is set (what a deployment uses),
// the in-memory ones otherwise. Next.js bundles instrumentation.ts apart from the route handlers, each
// with its own copy of the modules it imports: the stores both must see live on `globalThis`, so the
// process has one connection pool (or one set of in-memory maps).
import { randomBytes } from 'node:crypto'
import { type AccountStore, MemoryAccountStore } from '@portcullis/core/accounts'
import {
  type ApiKeyPepper,
  ApiKeyPepperRing,
  type ApiKeyStore,
  decodeApiKeyPepper,
  MemoryApiKeyStore,
} from '@portcullis/core/api-keys'
import { ConfigurationError } from '@portcullis/core/errors'
import {
  MemoryRateLimitStore,
  MemorySessionStore,
  type RateLimitStore,
  type SessionStore,
} from '@portcullis/core/local-accounts'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '@portcullis/postgres'

export interface Stores {
  readonly kind: 'postgres' | 'memory'
  readonly accounts: AccountStore
  readonly sessions: SessionStore
  readonly rateLimits: RateLimitStore
  readonly apiKeys: ApiKeyStore
  /** API keys are stored as HMAC digests under a pepper (see docs/providers.md). */
  readonly peppers: ApiKeyPepperRing
  /** Brings the schema up to date (Postgres); called once at startup, by instrumentation.ts. */
  prepare(): Promise<void>
}

// #region postgres-stores
function postgresStores(connectionString: string, pepper: ApiKeyPepper): Stores {
  // No connection is opened here: `next build` loads this module without a database.
  const client = createPostgresClient({ connectionString })
  return {
    kind: 'postgres',
    accounts: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    apiKeys: new PostgresApiKeyStore({ client }),
    // Every instance digests keys with the same pepper: it comes from a secret, never from the code.
    peppers: new ApiKeyPepperRing(pepper),
    prepare: async () => {
      await migrate(client)
    },
  }
}
// #endregion postgres-stores

/** The pepper of API key digests in the shared store: `API_KEY_PEPPER`, 32 bytes or more, base64url. */
function pepperFrom(env: NodeJS.ProcessEnv): ApiKeyPepper {
  const encoded = env.API_KEY_PEPPER
  if (encoded === undefined || encoded === '') {
    throw new ConfigurationError(
      'api_key.invalid_pepper',
      'API_KEY_PEPPER must be set (32 random bytes, base64url) when DATABASE_URL is',
    )
  }
  return decodeApiKeyPepper(env.API_KEY_PEPPER_VERSION ?? 'v1', encoded, 'base64url')
}

function memoryStores(): Stores {
  return {
    kind: 'memory',
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore(),
    rateLimits: new MemoryRateLimitStore(),
    apiKeys: new MemoryApiKeyStore(),
    // The keys live in this process, so a pepper made at startup is enough.
    peppers: new ApiKeyPepperRing({ version: 'startup', secret: randomBytes(32) }),
    prepare: async () => {},
  }
}

function storesFor(env: NodeJS.ProcessEnv): Stores {
  const url = env.DATABASE_URL
  return url === undefined || url === '' ? memoryStores() : postgresStores(url, pepperFrom(env))
}

const STORES = Symbol.for('@portcullis/example-nextjs:stores')
const holder = globalThis as { [STORES]?: Stores }

holder[STORES] ??= storesFor(process.env)

export const stores: Stores = holder[STORES]
