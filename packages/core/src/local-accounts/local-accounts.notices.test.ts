import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  bearerSource as bearer,
  sessionCookieSource as cookie,
  outcomeKind as kind,
  localFixture,
  scryptHasher,
  testPasswordScreen,
} from '../../test/support/local-accounts.js'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { MemoryRevocationNotices } from '../revocation/memory-revocation-notices.js'
import type { RevocationNotices, RevocationSubscriber } from '../revocation/revocation-notices.js'
import { LocalAccounts } from './local-accounts.js'
import type { LocalAccountsOptions } from './local-accounts-options.js'
import { MemoryRateLimitStore } from './rate-limits/memory-rate-limit-store.js'
import { MemorySessionStore } from './sessions/memory-session-store.js'
import type { SessionRecord, SessionWithAccountEpoch } from './sessions/session-store.js'
import type { SessionSignIn, TokenSignIn } from './sign-in.js'
import { MemoryRefreshTokenStore } from './tokens/memory-refresh-token-store.js'

const PASSWORD = 'correct horse battery staple'
const credentials = { username: 'alice', password: PASSWORD }

/** Notices whose trust the test switches, delivering in process like the memory ones. */
class SwitchableNotices implements RevocationNotices {
  readonly inner = new MemoryRevocationNotices()
  readonly subscribers = new Set<RevocationSubscriber>()
  up = true
  trusted(): boolean {
    return this.up
  }
  subscribe(subscriber: RevocationSubscriber): () => void {
    this.subscribers.add(subscriber)
    const off = this.inner.subscribe(subscriber)
    return () => {
      this.subscribers.delete(subscriber)
      off()
    }
  }
  publish(notice: Parameters<RevocationNotices['publish']>[0]): Promise<void> {
    // While down, notices are lost: exactly what a dropped LISTEN connection means.
    return this.up ? this.inner.publish(notice) : Promise.resolve()
  }
  reconnect(): void {
    for (const subscriber of this.subscribers) subscriber.flush()
    this.up = true
  }
}

/** Every method of `target` bound to it, with `overrides` in their place (private fields stay reachable). */
function wrap<T extends object>(target: T, overrides: Partial<Record<keyof T | string, unknown>>): T {
  const methods: Record<string, unknown> = {}
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(target))) {
    const member = (target as Record<string, unknown>)[name]
    if (name !== 'constructor' && typeof member === 'function') methods[name] = member.bind(target)
  }
  return Object.assign(methods, overrides) as T
}

/** Counts the store reads of the session path. */
function countingSessions(sessions: MemorySessionStore) {
  const counts = { get: 0 }
  const store = wrap(sessions, {
    get: (digest: string, now: Date) => {
      counts.get += 1
      return sessions.get(digest, now)
    },
  })
  return { store, counts }
}

/** Two instances (A and B) over shared memory stores and one in-process notice bus. */
async function twoInstances(notices: RevocationNotices, revocation: LocalAccountsOptions['revocation'] = {}) {
  const stores = {
    accounts: new MemoryAccountStore({ notices }),
    sessions: new MemorySessionStore({ notices }),
    refreshTokens: new MemoryRefreshTokenStore({ notices }),
  }
  const fixture = await localFixture({ ...stores, revocation: { notices, ...revocation } })
  const a = { ...fixture, ...stores }
  const { store, counts } = countingSessions(a.sessions)
  const b = new LocalAccounts({
    profile: 'hybrid',
    accounts: a.accounts,
    sessions: store,
    refreshTokens: a.refreshTokens,
    rateLimits: a.rateLimits,
    hasher: a.hasher,
    publicOrigin: 'https://app.example',
    passwordScreen: testPasswordScreen(),
    tokens: {
      ring: a.ring,
      issuer: 'https://app.example',
      audience: 'https://app.example/api',
      jwksUri: 'https://app.example/auth/jwks.json',
    },
    revocation: { notices, ...revocation },
    clock: a.clock,
  })
  const { accountId } = await a.local.register(credentials)
  return { a, b, accountId, reads: counts }
}

describe('revocation notices across instances', () => {
  it('a session signed out on one instance is refused by another at once, however long its cache may live', async () => {
    const { a, b, accountId, reads } = await twoInstances(new MemoryRevocationNotices(), {
      maxStalenessSeconds: 60,
    })
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(1)
    await a.local.logout({ accountId, credentials: { sessionHandle: session.handle } })
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('invalid')
  })

  it('a password change on one instance refuses the old sessions and access tokens on another at once', async () => {
    const { a, b, accountId } = await twoInstances(new MemoryRevocationNotices(), { maxStalenessSeconds: 60 })
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    const pair = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('authenticated')
    await a.local.changePassword({
      accountId,
      body: { currentPassword: PASSWORD, newPassword: 'another long passphrase' },
      credentials: {},
    })
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('invalid')
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('invalid')
  })

  it("a token sign-out on one instance refuses that sign-in's access tokens on another at once", async () => {
    const { a, b, accountId } = await twoInstances(new MemoryRevocationNotices())
    const pair = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    const other = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('authenticated')
    await a.local.logout({ accountId, credentials: { familyId: pair.familyId } })
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('invalid')
    expect(await kind(b.mechanisms[1], bearer(other))).toBe('authenticated')
  })

  it('while the notices are trusted a cached session is believed past the staleness bound, up to the safety TTL', async () => {
    const { a, b, reads } = await twoInstances(new MemoryRevocationNotices(), {
      maxStalenessSeconds: 5,
      safetyTtlSeconds: 120,
    })
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    a.clock.advance(60_000)
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(1)
    a.clock.advance(61_000)
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(2)
  })

  it('stops trusting cached entries the moment the notices are lost, and flushes them when they return', async () => {
    const notices = new SwitchableNotices()
    const { a, b, accountId, reads } = await twoInstances(notices, { maxStalenessSeconds: 5 })
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    a.clock.advance(10_000)
    notices.up = false
    // Read 10 s ago: beyond the 5 s staleness bound, which applies from now on.
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(2)
    // A sign-out while the listener is away: its notice is lost; B believes its entry for 5 s at most.
    await a.local.logout({ accountId, credentials: { sessionHandle: session.handle } })
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(2)
    notices.reconnect()
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('invalid')
    expect(reads.get).toBe(3)
  })

  it('falls back to strict reads without trusted notices when the staleness bound is 0', async () => {
    const notices = new SwitchableNotices()
    const { a, b, reads } = await twoInstances(notices, { maxStalenessSeconds: 0 })
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(1)
    notices.up = false
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(reads.get).toBe(3)
  })

  it('does not cache a read that was in flight when a notice named it', async () => {
    const notices = new MemoryRevocationNotices()
    const { a, b, accountId } = await twoInstances(notices)
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    // B's store answers late: the read starts before the sign-out and returns the row as it was.
    const before = await a.sessions.list({ accountId, now: new Date(a.clock()) })
    let release: (row: SessionRecord | null) => void = () => {}
    const slow = wrap(a.sessions, {
      get: () =>
        new Promise<SessionRecord | null>((resolve) => {
          release = resolve
        }),
    })
    const c = new LocalAccounts({
      profile: 'session',
      accounts: a.accounts,
      sessions: slow,
      rateLimits: a.rateLimits,
      hasher: a.hasher,
      publicOrigin: 'https://app.example',
      passwordScreen: testPasswordScreen(),
      revocation: { notices, maxStalenessSeconds: 60 },
      clock: a.clock,
    })
    void b
    const pending = kind(c.mechanisms[0], cookie(session))
    await a.local.logout({ accountId, credentials: { sessionHandle: session.handle } })
    release(before[0] ?? null)
    expect(await pending).toBe('authenticated') // answered from a read that began before the sign-out
    Object.assign(slow, { get: (digest: string, now: Date) => a.sessions.get(digest, now) })
    expect(await kind(c.mechanisms[0], cookie(session))).toBe('invalid')
  })
})

describe('epoch moves and deletions in the memory account store reach the other instance', () => {
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('test-1', randomBytes(32)),
  })
  const now = () => new Date()
  type Move = (store: MemoryAccountStore, accountId: string, providerAccountId: string) => Promise<unknown>
  const view = (store: MemoryAccountStore) => store.oauth({ provider: 'idp', clientId: 'client', protector })
  const moves: readonly (readonly [string, Move])[] = [
    [
      'a password change in the store',
      (store, accountId) =>
        store.setPassword({ accountId, passwordHash: '$x$new', bumpEpoch: true, now: now() }),
    ],
    ['an epoch bump', (store, accountId) => store.bumpSecurityEpoch({ accountId, now: now() })],
    ['removing the password', (store, accountId) => store.removePassword({ accountId, now: now() })],
    [
      'unlinking the provider identity',
      (store, accountId, providerAccountId) =>
        view(store).unlink({ accountId, provider: 'idp', providerAccountId }),
    ],
    [
      'disabling the account',
      (store, accountId) => store.setAccountStatus({ accountId, status: 'disabled', now: now() }),
    ],
    ['deleting the account', (store, accountId) => store.deleteAccount({ accountId, now: now() })],
  ]

  it.each(moves)(
    '%s refuses the sessions and access tokens another instance had cached, at once',
    async (_, move) => {
      const { a, b, accountId } = await twoInstances(new MemoryRevocationNotices(), {
        maxStalenessSeconds: 60,
      })
      const linked = await view(a.accounts).link({
        accountId,
        identity: { provider: 'idp', issuer: 'https://idp.example/', subject: 'subject-1' },
        grant: { scopes: ['openid'], expiresAt: new Date(Date.now() + 3_600_000) },
        now: now(),
      })
      const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
      const pair = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
      expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
      expect(await kind(b.mechanisms[1], bearer(pair))).toBe('authenticated')
      await move(a.accounts, accountId, linked.link.providerAccountId)
      expect(await kind(b.mechanisms[0], cookie(session))).toBe('invalid')
      expect(await kind(b.mechanisms[1], bearer(pair))).toBe('invalid')
    },
  )
})

describe('strict mode in one statement', () => {
  it('reads the session and its account epoch with one store call and no account lookup', async () => {
    const accounts = new MemoryAccountStore()
    const sessions = new MemorySessionStore()
    const calls = { joined: 0, get: 0, getAccount: 0 }
    const joinedStore = wrap(sessions, {
      get: (digest: string, now: Date) => {
        calls.get += 1
        return sessions.get(digest, now)
      },
      async getWithAccountEpoch(digest: string, now: Date): Promise<SessionWithAccountEpoch | null> {
        calls.joined += 1
        const session = await sessions.get(digest, now)
        if (session === null) return null
        const account = await accounts.getAccount(session.accountId)
        return { session, accountEpoch: account?.securityEpoch ?? null }
      },
    })
    const countedAccounts = wrap(accounts, {
      getAccount: (accountId: string) => {
        calls.getAccount += 1
        return accounts.getAccount(accountId)
      },
    })
    const local = new LocalAccounts({
      profile: 'session',
      accounts: countedAccounts,
      sessions: joinedStore,
      rateLimits: new MemoryRateLimitStore(),
      hasher: scryptHasher(),
      registration: 'open',
      publicOrigin: 'https://app.example',
      passwordScreen: testPasswordScreen(),
      revocation: { maxStalenessSeconds: 0 },
    })
    const { accountId } = await local.register(credentials)
    const session = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const before = { ...calls }
    for (let index = 0; index < 3; index += 1) {
      expect(await kind(local.mechanisms[0], cookie(session))).toBe('authenticated')
    }
    expect(calls.joined - before.joined).toBe(3)
    expect(calls.get - before.get).toBe(0)
    expect(calls.getAccount - before.getAccount).toBe(0)
    await accounts.bumpSecurityEpoch({ accountId, now: new Date() })
    expect(await kind(local.mechanisms[0], cookie(session))).toBe('invalid')
  })
})
