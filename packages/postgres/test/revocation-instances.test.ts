import { randomBytes, randomUUID } from 'node:crypto'
import { ApiKeyService } from '@portcullis/core/api-keys'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import type { LocalAccounts, SessionSignIn, SessionStore } from '@portcullis/core/local-accounts'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresSessionStore,
} from '../src/index.js'
import { peppers } from './support/api-keys.js'
import { realProtector } from './support/database.js'
import { instancesDatabase, postgresLocalAccounts, sessionOutcome } from './support/instances.js'

/**
 * Two app instances (A and B), each with its own pool and its own listener, on one database. B's session
 * and API-key stores count their reads. The listener of B is killed (`pg_terminate_backend`) while B
 * serves a steady load: from then on B must never answer from a cache that a lost notice could have made
 * stale, and once its listener is back its caches must serve again (reads per request back to zero).
 */
const db = await instancesDatabase()

async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  return true
}

/** Every method of the store bound to it, `get`/`getWithAccountEpoch` counted. */
function counted<T extends object>(store: T, names: readonly string[]): { store: T; reads: () => number } {
  let reads = 0
  const wrapped: Record<string, unknown> = {}
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
    const member = (store as Record<string, unknown>)[name]
    if (name === 'constructor' || typeof member !== 'function') continue
    const bound = member.bind(store) as (...args: unknown[]) => unknown
    wrapped[name] = names.includes(name)
      ? (...args: unknown[]) => {
          reads += 1
          return bound(...args)
        }
      : bound
  }
  return { store: wrapped as T, reads: () => reads }
}

async function instance(
  client: PostgresClient,
  options: { maxStalenessSeconds: number; reconnectDelayMs: number },
) {
  const notices = await db.listening(client, { reconnectDelayMs: options.reconnectDelayMs })
  const sessions = counted<SessionStore>(new PostgresSessionStore({ client }), ['get', 'getWithAccountEpoch'])
  const keys = counted(new PostgresApiKeyStore({ client }), ['get'])
  const local = postgresLocalAccounts(client, notices, {
    sessions: sessions.store,
    registration: 'closed',
    passwordScreen: commonPasswordScreen(),
    revocation: { notices, maxStalenessSeconds: options.maxStalenessSeconds },
  })
  const apiKeys = new ApiKeyService({ store: keys.store, peppers, prefix: 'pgtest', notices })
  return { notices, local, apiKeys, sessionReads: sessions.reads, keyReads: keys.reads }
}

const outcome = sessionOutcome

async function accountWithSessions(a: LocalAccounts, count: number) {
  const accountId = randomUUID()
  await new PostgresAccountStore({ client: db.client }).createAccount({
    accountId,
    username: `user.${randomBytes(6).toString('hex')}`,
    passwordHash: '$plain$x',
    now: new Date(),
  })
  const signIns: SessionSignIn[] = []
  for (let index = 0; index < count; index += 1) {
    signIns.push((await a.establishSignIn({ accountId })) as SessionSignIn)
  }
  return { accountId, signIns }
}

/** Keeps `workers` concurrent checks of `live` sessions running on `b` until stopped; counts outcomes. */
function load(mechanism: AuthenticationMechanism | undefined, live: readonly SessionSignIn[], workers = 8) {
  let running = true
  const outcomes = { authenticated: 0, other: 0 }
  const worker = async (offset: number) => {
    for (let index = offset; running; index += 1) {
      const kind = await outcome(mechanism, live[index % live.length] as SessionSignIn)
      if (kind === 'authenticated') outcomes.authenticated += 1
      else outcomes.other += 1
      // A cache hit settles without I/O: yield as a request's socket would, or timers starve.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  const all = Array.from({ length: workers }, (_, index) => worker(index))
  return {
    outcomes,
    async stop() {
      running = false
      await Promise.all(all)
    },
  }
}

describe('a killed listener under load', () => {
  it('never serves a revoked session or key from a cache once the listener is gone, and caches again after it is back', async () => {
    // B's listener stays away long enough (8 s, at least 6.4 s with jitter) for the revocations below,
    // even on a loaded machine (at 3 s they once took longer and it was back before the check).
    const a = await instance(db.connect(4), { maxStalenessSeconds: 0, reconnectDelayMs: 3_000 })
    const b = await instance(db.connect(8), { maxStalenessSeconds: 0, reconnectDelayMs: 8_000 })
    const { signIns: live } = await accountWithSessions(a.local, 16)
    const { signIns: doomed } = await accountWithSessions(a.local, 8)
    const key = await a.apiKeys.issue({ ownerId: 'svc' })
    const sessionOf = b.local.mechanisms[0]
    for (const signIn of [...live, ...doomed]) expect(await outcome(sessionOf, signIn)).toBe('authenticated')
    expect((await b.apiKeys.verify(key.value)).kind).toBe('valid')
    const warm = { sessions: b.sessionReads(), keys: b.keyReads() }
    const background = load(sessionOf, live)
    await new Promise((resolve) => setTimeout(resolve, 200))
    // Served from cache: no reads under load while the listener is up.
    expect(b.sessionReads()).toBe(warm.sessions)
    expect(background.outcomes.authenticated).toBeGreaterThan(0)

    const pid = b.notices.listenerProcessId
    await db.client.pool.query('select pg_terminate_backend($1)', [pid])
    const killedAt = performance.now()
    expect(await eventually(() => !b.notices.trusted(), 2_000)).toBe(true)
    const noticedMs = performance.now() - killedAt
    // The listener is away (it reconnects after ~8 s): these revocations' notices never reach B.
    for (const signIn of doomed) {
      await a.local.revokeSession(signIn.accountId, signIn.handle)
    }
    await a.apiKeys.revoke(key.keyId)
    expect(b.notices.trusted()).toBe(false)
    for (const signIn of doomed) expect(await outcome(sessionOf, signIn)).toBe('invalid')
    expect((await b.apiKeys.verify(key.value)).kind).toBe('invalid')
    const readsWhileDown = b.sessionReads()
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Strict reads while down: the live load reads the store on every request.
    expect(b.sessionReads()).toBeGreaterThan(readsWhileDown)

    expect(await eventually(() => b.notices.trusted(), 30_000)).toBe(true)
    expect(b.notices.reconnects).toBe(1)
    for (const signIn of doomed) expect(await outcome(sessionOf, signIn)).toBe('invalid')
    // Back to the cache: after one read per session, the load reads nothing (a 200 ms window without a
    // single store read comes, however slow the machine).
    const quiet = async () => {
      const before = b.sessionReads()
      await new Promise((resolve) => setTimeout(resolve, 200))
      return b.sessionReads() === before
    }
    let settled = false
    for (let attempt = 0; attempt < 25 && !settled; attempt += 1) settled = await quiet()
    expect(settled).toBe(true)
    await background.stop()
    expect(background.outcomes.other).toBe(0)
    // Told by the connection's own error event, not by a missed heartbeat: well inside the 3 s lease
    // (milliseconds when idle; the margin is for a loaded machine's event loop).
    expect(noticedMs).toBeLessThan(2_000)
  })

  it('with a staleness bound, a session revoked while the listener was away is refused as soon as it is back (flush)', async () => {
    const a = await instance(db.connect(4), { maxStalenessSeconds: 60, reconnectDelayMs: 300 })
    const b = await instance(db.connect(4), { maxStalenessSeconds: 60, reconnectDelayMs: 300 })
    const { signIns } = await accountWithSessions(a.local, 2)
    const [revoked, kept] = signIns as [SessionSignIn, SessionSignIn]
    expect(await outcome(b.local.mechanisms[0], revoked)).toBe('authenticated')
    await db.client.pool.query('select pg_terminate_backend($1)', [b.notices.listenerProcessId])
    expect(await eventually(() => !b.notices.trusted(), 2_000)).toBe(true)
    await a.local.revokeSession(revoked.accountId, revoked.handle)
    // Within the configured 60 s bound, B may still believe what it read a moment ago.
    expect(await outcome(b.local.mechanisms[0], revoked)).toBe('authenticated')
    expect(await eventually(() => b.notices.trusted(), 15_000)).toBe(true)
    expect(await outcome(b.local.mechanisms[0], revoked)).toBe('invalid')
    expect(await outcome(b.local.mechanisms[0], kept)).toBe('authenticated')
  })

  it('a revocation on one instance is refused by the other within moments while both listen', async () => {
    const a = await instance(db.connect(4), { maxStalenessSeconds: 60, reconnectDelayMs: 100 })
    const b = await instance(db.connect(4), { maxStalenessSeconds: 60, reconnectDelayMs: 100 })
    const { signIns } = await accountWithSessions(a.local, 20)
    for (const signIn of signIns) expect(await outcome(b.local.mechanisms[0], signIn)).toBe('authenticated')
    const reads = b.sessionReads()
    for (const signIn of signIns) {
      await a.local.revokeSession(signIn.accountId, signIn.handle)
      expect(await eventuallyRefused(b.local.mechanisms[0], signIn)).toBe(true)
    }
    // Refused because the notice evicted the entry: one read per session after its eviction.
    expect(b.sessionReads() - reads).toBeLessThanOrEqual(signIns.length * 2)
  })
})

describe('epoch moves and deletions in the account store reach the other instance', () => {
  const protector = realProtector()
  const now = () => new Date()
  type Move = (parts: {
    readonly store: PostgresAccountStore
    readonly accountId: string
    readonly provider: string
    readonly providerAccountId: string
  }) => Promise<unknown>
  const moves: readonly (readonly [string, Move])[] = [
    [
      'a password change',
      ({ store, accountId }) =>
        store.setPassword({ accountId, passwordHash: '$plain$new', bumpEpoch: true, now: now() }),
    ],
    ['sign-out everywhere', ({ store, accountId }) => store.bumpSecurityEpoch({ accountId, now: now() })],
    ['removing the password', ({ store, accountId }) => store.removePassword({ accountId, now: now() })],
    [
      'unlinking the provider identity',
      ({ store, accountId, provider, providerAccountId }) =>
        store
          .oauth({ provider, clientId: `client-${provider}`, protector })
          .unlink({ accountId, provider, providerAccountId }),
    ],
    [
      'disabling the account',
      ({ store, accountId }) => store.setAccountStatus({ accountId, status: 'disabled', now: now() }),
    ],
    ['deleting the account', ({ store, accountId }) => store.deleteAccount({ accountId, now: now() })],
  ]

  it.each(moves)(
    '%s on A: B refuses the sessions it had cached when the notice arrives, well inside its 60 s bound',
    async (_, move) => {
      const a = await instance(db.connect(2), { maxStalenessSeconds: 60, reconnectDelayMs: 100 })
      const b = await instance(db.connect(2), { maxStalenessSeconds: 60, reconnectDelayMs: 100 })
      const { accountId, signIns } = await accountWithSessions(a.local, 2)
      const store = new PostgresAccountStore({ client: db.client })
      const provider = `provider-${randomBytes(4).toString('hex')}`
      const linked = await store.oauth({ provider, clientId: `client-${provider}`, protector }).link({
        accountId,
        identity: { provider, issuer: 'https://idp.example/', subject: randomUUID() },
        grant: { scopes: ['openid'], expiresAt: new Date(Date.now() + 3_600_000) },
        now: now(),
      })
      const sessionOf = b.local.mechanisms[0]
      for (const signIn of signIns) expect(await outcome(sessionOf, signIn)).toBe('authenticated')
      // B serves these from its caches now: without a notice it would keep doing so for 60 s.
      const reads = b.sessionReads()
      for (const signIn of signIns) expect(await outcome(sessionOf, signIn)).toBe('authenticated')
      expect(b.sessionReads()).toBe(reads)
      await move({ store, accountId, provider, providerAccountId: linked.link.providerAccountId })
      for (const signIn of signIns) expect(await eventuallyRefused(sessionOf, signIn)).toBe(true)
    },
  )

  it("deleting the account on A: B refuses the account's API key it had cached when the notice arrives", async () => {
    const a = await instance(db.connect(2), { maxStalenessSeconds: 60, reconnectDelayMs: 100 })
    const b = await instance(db.connect(2), { maxStalenessSeconds: 60, reconnectDelayMs: 100 })
    const { accountId } = await accountWithSessions(a.local, 1)
    const key = await a.apiKeys.issue({ ownerId: accountId, ownerKind: 'user' })
    expect((await b.apiKeys.verify(key.value)).kind).toBe('valid')
    const reads = b.keyReads()
    expect((await b.apiKeys.verify(key.value)).kind).toBe('valid')
    expect(b.keyReads()).toBe(reads)
    const deleted = await new PostgresAccountStore({ client: db.client }).deleteAccount({
      accountId,
      now: now(),
    })
    expect(deleted.outcome).toBe('deleted')
    const deadline = Date.now() + 5_000
    let kind = (await b.apiKeys.verify(key.value)).kind
    while (kind === 'valid' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1))
      kind = (await b.apiKeys.verify(key.value)).kind
    }
    expect(kind).toBe('invalid')
  })
})

async function eventuallyRefused(mechanism: AuthenticationMechanism | undefined, signIn: SessionSignIn) {
  const deadline = Date.now() + 5_000
  while (Date.now() < deadline) {
    if ((await outcome(mechanism, signIn)) === 'invalid') return true
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return false
}
