import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import {
  LocalAccounts,
  type LocalAccountsOptions,
  PASSWORD_ACCEPTED,
  type PasswordHasher,
  type SessionSignIn,
} from '@portcullis/core/local-accounts'
import { afterAll } from 'vitest'
import {
  PostgresAccountStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresRevocationNotices,
  PostgresSessionStore,
} from '../../src/index.js'
import { type MigratedDatabase, migratedDatabase } from './database.js'

// What the tests of several app instances on one database share: the database, the listeners and
// whatever else they open (closed after the file, newest first), the local accounts of an instance.

/** Tests only: a hasher without cost (an application uses @portcullis/argon2). */
export const PLAIN_HASHER: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}

export interface InstancesDatabase extends MigratedDatabase {
  /** Closed after the file's tests, newest first, before the database. */
  closeAfterAll<T extends { close(): Promise<void> | void }>(opened: T): T
  /** A started revocation listener on `client` (its own connection), closed after the file. */
  listening(
    client: PostgresClient,
    options?: { readonly reconnectDelayMs?: number },
  ): Promise<PostgresRevocationNotices>
}

/** A fresh migrated database for the file; what its instances open is closed after its tests. */
export async function instancesDatabase(): Promise<InstancesDatabase> {
  const db = await migratedDatabase()
  const open: { close(): Promise<void> | void }[] = []
  afterAll(async () => {
    for (const each of open.splice(0).reverse()) await each.close()
    await db.close()
  })
  const closeAfterAll = <T extends { close(): Promise<void> | void }>(opened: T): T => {
    open.push(opened)
    return opened
  }
  return {
    ...db,
    closeAfterAll,
    async listening(client, options = {}) {
      const notices = closeAfterAll(new PostgresRevocationNotices({ client, ...options }))
      await notices.start()
      return notices
    },
  }
}

/**
 * The session-profile local accounts of one instance on Postgres stores (open registration, no password
 * screen, the plain hasher), believing `notices` for up to 60 s unless `overrides` say otherwise.
 */
export function postgresLocalAccounts(
  client: PostgresClient,
  notices: PostgresRevocationNotices,
  overrides: Partial<LocalAccountsOptions> = {},
): LocalAccounts {
  return new LocalAccounts({
    profile: 'session',
    accounts: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    hasher: PLAIN_HASHER,
    publicOrigin: 'https://app.example',
    registration: 'open',
    passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
    revocation: { notices, maxStalenessSeconds: 60 },
    ...overrides,
  } as LocalAccountsOptions)
}

/** The request source of a session's cookie (what a browser sends back). */
export function sessionCookieSource(signIn: SessionSignIn) {
  return {
    header: (name: string) => (name === 'cookie' ? (signIn.setCookie.split(';')[0] as string) : undefined),
    cookie: () => undefined,
    method: 'GET',
    path: '/',
  }
}

/** What `mechanism` makes of the session's cookie: `authenticated`, `invalid`, ... */
export async function sessionOutcome(mechanism: AuthenticationMechanism | undefined, signIn: SessionSignIn) {
  return (await mechanism?.authenticate(sessionCookieSource(signIn)))?.kind
}

/** Polls until `check` holds; the milliseconds it took, or null after `timeoutMs`. */
export async function within(check: () => Promise<boolean>, timeoutMs: number): Promise<number | null> {
  const started = performance.now()
  while (performance.now() - started < timeoutMs) {
    if (await check()) return performance.now() - started
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  return null
}
