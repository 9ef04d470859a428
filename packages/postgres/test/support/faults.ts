import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { type PostgresClient, PostgresOAuthAccountStore } from '../../src/index.js'
import { accountFixtures, NOW } from './accounts.js'
import { type MigratedDatabase, realProtector } from './database.js'

/** Which whole outcome the tables show after a faulted operation. */
export type Outcome = 'written' | 'untouched'

/** One store operation that writes, run through a pool whose connection is cut while it is in flight. */
export interface FaultCase {
  readonly name: string
  /** The table the operation is parked on (locked by another session). */
  readonly table: string
  /** One operation on fresh data; `check` reads the tables and says which whole outcome they show. */
  prepare(client: PostgresClient): Promise<{ run(): Promise<unknown>; check(): Promise<Outcome> }>
  /** Operations that are one transaction of several statements can only end untouched after a cut. */
  readonly multiStatement: boolean
}

/** Fails a check: the tables show a partial write. */
export function partial(what: string): never {
  throw new Error(`partial write: ${what}`)
}

/** What the fault cases share: the database (reached directly, never through the proxy) and builders. */
export function faultKit(db: MigratedDatabase) {
  const protector: OAuthTransactionProtector = realProtector()
  const fixtures = accountFixtures(db)
  const identity = fixtures.identity
  const tokens: (label: string) => accounts.ProviderTokenSet = fixtures.tokens
  const direct = (sql: string, values: unknown[] = []) => db.client.pool.query(sql, values)
  const accountStore = (client: PostgresClient, clientId = 'client-1') =>
    new PostgresOAuthAccountStore({ client, provider: 'example-idp', clientId, protector })
  return {
    db,
    protector,
    identity,
    tokens,
    direct,
    accountStore,
    hex: () => createHash('sha256').update(randomBytes(32)).digest('hex'),
    async one<T>(sql: string, values: unknown[] = []): Promise<T | undefined> {
      return (await direct(sql, values)).rows[0] as T | undefined
    },
    session(overrides: { accountId?: string } = {}) {
      const now = new Date()
      return {
        digest: createHash('sha256').update(randomBytes(32)).digest('hex'),
        handle: randomBytes(16).toString('base64url'),
        accountId: overrides.accountId ?? `account-${randomUUID()}`,
        securityEpoch: 1,
        createdAt: now,
        lastSeenAt: now,
        idleExpiresAt: new Date(now.getTime() + 1_800_000),
        absoluteExpiresAt: new Date(now.getTime() + 28_800_000),
      }
    },
    async linked(client: PostgresClient) {
      const login = await accountStore(client).login({
        identity: identity(),
        grant: { scopes: ['openid'] },
        tokens: tokens('seed'),
        provisionUnknown: true,
        now: NOW,
      })
      return { accountId: login.link.accountId, providerAccountId: login.link.providerAccountId }
    },
  }
}

export type FaultKit = ReturnType<typeof faultKit>
