// The in-memory stores, once per process. Next.js bundles instrumentation.ts apart from the route
// handlers, each with its own copy of the modules it imports: state both must see lives on `globalThis`,
// the way a database would be shared. A deployment uses the Postgres stores instead.
import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { ApiKeyPepperRing, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { MemoryRateLimitStore, MemorySessionStore } from '@portcullis/core/local-accounts'

export interface Stores {
  readonly accounts: MemoryAccountStore
  readonly sessions: MemorySessionStore
  readonly rateLimits: MemoryRateLimitStore
  readonly apiKeys: MemoryApiKeyStore
  /**
   * API keys are stored as HMAC digests under a pepper. The keys live in this process, so a pepper made at
   * startup is enough; with a shared store, read it from a secret (see docs/providers.md).
   */
  readonly peppers: ApiKeyPepperRing
}

const STORES = Symbol.for('@portcullis/example-nextjs:stores')
const holder = globalThis as { [STORES]?: Stores }

holder[STORES] ??= {
  accounts: new MemoryAccountStore(),
  sessions: new MemorySessionStore(),
  rateLimits: new MemoryRateLimitStore(),
  apiKeys: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'startup', secret: randomBytes(32) }),
}

export const stores: Stores = holder[STORES]
