import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import {
  digestOpaqueToken,
  LocalAccounts,
  newOpaqueToken,
  type PasswordHasher,
  type SessionSignIn,
} from '@portcullis/core/local-accounts'
import { accounts } from '@portcullis/core/oauth'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  MIGRATIONS,
  migrate,
  migrationStatus,
  PostgresAccountStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '../src/index.js'
import { realProtector } from './support/database.js'
import { insertOldSession, migrateThrough, migrationDatabase } from './support/migration-database.js'
import { V5LocalAccountStore, V5OAuthAccountStore } from './support/schema-v5.js'

/** A real (cheap) hasher: scrypt, `$scrypt$salt$hash`. */
const hasher: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(16)
    return `$scrypt$${salt.toString('base64url')}$${(await derive(password, salt)).toString('base64url')}`
  },
  async verify(encoded, password) {
    const [, , salt, hash] = encoded.split('$')
    if (salt === undefined || hash === undefined) return false
    const expected = Buffer.from(hash, 'base64url')
    const actual = await derive(password, Buffer.from(salt, 'base64url'))
    return expected.length === actual.length && timingSafeEqual(expected, actual)
  },
  needsRehash: () => false,
}
function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { N: 1024, r: 8, p: 1 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

const NOW = new Date()
const ISSUERS = { google: 'https://accounts.google.example', github: 'https://github.example' } as const
const protector = realProtector()
const client: PostgresClient = await migrationDatabase()

const identity = (provider: keyof typeof ISSUERS, subject: string): accounts.ProviderIdentity => ({
  provider,
  issuer: ISSUERS[provider],
  subject,
})
const tokens = (label: string) =>
  new accounts.ProviderTokenSet({
    accessToken: `access-${label}`,
    refreshToken: `refresh-${label}`,
    scopes: ['openid'],
    expiresAt: new Date(NOW.getTime() + 3_600_000),
  })

/** What each user had before the migration: their password (if any) and their provider identities. */
interface User {
  readonly accountId: string
  readonly password?: { readonly username: string; readonly password: string }
  readonly identities: readonly accounts.ProviderIdentity[]
  readonly epoch: number
}
const users: Record<string, User> = {}
let aliceSession = ''

describe('migration 6 merges password accounts and OAuth accounts into one account model', () => {
  beforeAll(async () => {
    await migrateThrough(client, 5)
    const local = new V5LocalAccountStore(client)
    const google = new V5OAuthAccountStore(client, 'google', 'google-client', protector)
    const github = new V5OAuthAccountStore(client, 'github', 'github-client', protector)
    const signUp = async (accountId: string, username: string, password: string) => {
      await local.createAccount({ accountId, username, passwordHash: await hasher.hash(password), now: NOW })
    }

    // Alice: a password only, changed once (epoch 2), signed in with a session at that epoch.
    await signUp('alice', 'alice', 'first password')
    await local.setPassword({
      accountId: 'alice',
      passwordHash: await hasher.hash('alice password'),
      now: NOW,
      bumpEpoch: true,
    })
    aliceSession = newOpaqueToken(32)
    await insertOldSession(client, {
      digest: digestOpaqueToken(aliceSession),
      handle: newOpaqueToken(16),
      accountId: 'alice',
      securityEpoch: 2,
      createdAt: NOW,
      lastSeenAt: NOW,
      idleExpiresAt: new Date(NOW.getTime() + 3_600_000),
      absoluteExpiresAt: new Date(NOW.getTime() + 7_200_000),
    })
    users.alice = {
      accountId: 'alice',
      password: { username: 'alice', password: 'alice password' },
      identities: [],
      epoch: 2,
    }

    // Bob: a password, registered with the OAuth directory by the application (the old glue), Google
    // linked with retained tokens.
    await signUp('bob', 'bob', 'bob password')
    await google.registerAccount({ accountId: 'bob', loginMethods: 1 })
    await google.link({
      accountId: 'bob',
      identity: identity('google', 'g-bob'),
      grant: { scopes: ['openid'] },
      tokens: tokens('bob'),
      now: NOW,
    })
    users.bob = {
      accountId: 'bob',
      password: { username: 'bob', password: 'bob password' },
      identities: [identity('google', 'g-bob')],
      epoch: 1,
    }

    // Carol: provisioned by her first Google sign-in (never a password), GitHub linked later.
    const carol = await google.login({
      identity: identity('google', 'g-carol'),
      grant: { scopes: ['openid'] },
      tokens: tokens('carol'),
      provisionUnknown: true,
      now: NOW,
    })
    await github.link({
      accountId: carol.link.accountId,
      identity: identity('github', '1001'),
      grant: { scopes: ['read:user'] },
      now: NOW,
    })
    users.carol = {
      accountId: carol.link.accountId,
      identities: [identity('github', '1001'), identity('google', 'g-carol')],
      epoch: 1,
    }

    // Dave: a password account the application never registered with the OAuth directory (the gap).
    await signUp('dave', 'dave', 'dave password')
    users.dave = {
      accountId: 'dave',
      password: { username: 'dave', password: 'dave password' },
      identities: [],
      epoch: 1,
    }

    // Erin: registered with the OAuth directory only (her other method lived outside Portcullis), GitHub linked.
    await github.registerAccount({ accountId: 'erin', loginMethods: 1 })
    await github.link({
      accountId: 'erin',
      identity: identity('github', '2002'),
      grant: { scopes: ['read:user'] },
      now: NOW,
    })
    users.erin = { accountId: 'erin', identities: [identity('github', '2002')], epoch: 1 }

    const later = MIGRATIONS.filter((migration) => migration.version >= 6).map(({ version }) => version)
    expect(await migrate(client)).toEqual({ applied: later, current: later.at(-1) })
  })

  it('portcullis-postgres status reports one-account as version 6 and nothing pending', async () => {
    const status = await migrationStatus(client)
    expect(status.applied.map((migration) => migration.version)).toEqual(
      MIGRATIONS.map((migration) => migration.version),
    )
    expect(status.applied.find((migration) => migration.version === 6)?.name).toBe('one-account')
    expect(status.pending).toEqual([])
  })

  it('keeps sessions valid (the epoch moved with the password) and retained provider tokens readable', async () => {
    const store = new PostgresAccountStore({ client })
    const local = new LocalAccounts({
      profile: 'session',
      accounts: store,
      sessions: new PostgresSessionStore({ client }),
      rateLimits: new PostgresRateLimitStore({ client }),
      hasher,
      publicOrigin: 'https://app.example',
      passwordScreen: commonPasswordScreen(),
    })
    const rotated = await local.rotateSession(aliceSession)
    expect(rotated.accountId).toBe('alice')
    const google = store.oauth({ provider: 'google', clientId: 'google-client', protector })
    for (const [name, label] of [
      ['bob', 'bob'],
      ['carol', 'carol'],
    ] as const) {
      const link = await google.resolveLink({ accountId: users[name]?.accountId ?? '', provider: 'google' })
      const stored = link === null ? null : await google.getTokens(link.providerAccountId)
      expect(stored?.tokens.accessToken, `${name}'s tokens`).toBe(`access-${label}`)
    }
  })

  it('every user still signs in with every method they had, into the same account', async () => {
    const store = new PostgresAccountStore({ client })
    const local = new LocalAccounts({
      profile: 'session',
      accounts: store,
      sessions: new PostgresSessionStore({ client }),
      rateLimits: new PostgresRateLimitStore({ client }),
      hasher,
      publicOrigin: 'https://app.example',
      passwordScreen: commonPasswordScreen(),
    })
    const views = {
      google: store.oauth({ provider: 'google', clientId: 'google-client', protector }),
      github: store.oauth({ provider: 'github', clientId: 'github-client', protector }),
    }
    for (const [name, user] of Object.entries(users)) {
      if (user.password !== undefined) {
        const signIn = (await local.login(user.password, { transport: 'session' })) as SessionSignIn
        expect(signIn.accountId, `${name} by password`).toBe(user.accountId)
      }
      for (const person of user.identities) {
        const view = views[person.provider as keyof typeof views]
        const login = await view.login({
          identity: person,
          grant: { scopes: ['openid'] },
          provisionUnknown: false,
          now: NOW,
        })
        expect(login.link.accountId, `${name} by ${person.provider}`).toBe(user.accountId)
        expect(login.provisioned).toBe(false)
      }
      // Signed in by a provider alone, an account now gets a local session too (impossible before).
      const established = await local.establishSignIn({ accountId: user.accountId })
      expect(established.accountId, `${name} establishes a session`).toBe(user.accountId)
      const methods = await store.listSignInMethods(user.accountId)
      expect(
        methods.map((method) => (method.kind === 'identity' ? method.provider : method.kind)),
        name,
      ).toEqual([
        ...(user.password === undefined ? [] : ['password']),
        ...user.identities.map((person) => person.provider).sort(),
      ])
      expect((await store.getAccount(user.accountId))?.securityEpoch, `${name}'s epoch`).toBe(user.epoch)
    }
  })

  it('the last method is now a row like any other: removing it is refused, adding a password works', async () => {
    const store = new PostgresAccountStore({ client })
    expect(await store.removePassword({ accountId: 'dave', now: NOW })).toEqual({ outcome: 'final-method' })
    const added = await store.addPassword({
      accountId: users.carol?.accountId ?? '',
      username: 'carol',
      passwordHash: await hasher.hash('carol password'),
      now: NOW,
    })
    expect(added.outcome).toBe('added')
    expect(
      await store.addPassword({ accountId: 'erin', username: 'dave', passwordHash: 'x', now: NOW }),
    ).toEqual({ outcome: 'username-taken' })
  })
})
