import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { SessionRecord } from '@portcullis/core/local-accounts'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresRefreshTokenStore,
  PostgresRevocationNotices,
  PostgresSessionStore,
  revocationChannel,
} from '../src/index.js'
import { apiKeyInstance, codeOf } from './support/api-keys.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
const open: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const each of open.splice(0)) await each.close()
  await db.close()
})

const T0 = new Date()
const at = (ms: number) => new Date(T0.getTime() + ms)
const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex')

/** A one-connection pool reaching the database through a fault proxy (stall, cut, resume). */
async function poolBehindProxy() {
  const target = new URL(db.database.connectionString)
  const proxy = await startFaultProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || 5432),
  })
  open.push(proxy)
  const client = createPostgresClient({
    connectionString: proxy.through(db.database.connectionString),
    maxConnections: 1,
  })
  open.push(client)
  return { proxy, client }
}

/** A started listener on `client` recording what it hears. */
async function listening(
  client: PostgresClient = db.client,
  options: { leaseMs?: number; heartbeatMs?: number } = {},
) {
  const notices = new PostgresRevocationNotices({ client, reconnectDelayMs: 20, ...options })
  open.push(notices)
  const heard: RevocationNotice[] = []
  let flushes = 0
  notices.subscribe({
    revoked: (notice) => heard.push(notice),
    flush: () => {
      flushes += 1
    },
  })
  await notices.start()
  return { notices, heard, flushes: () => flushes }
}

async function eventually(condition: () => boolean, timeoutMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}

/** Publishes a marker and waits for it: everything committed before it has arrived by then. */
async function settle(listener: Awaited<ReturnType<typeof listening>>): Promise<void> {
  const accountId = `marker-${randomUUID()}`
  await listener.notices.publish({ kind: 'account', accountId })
  expect(
    await eventually(() => listener.heard.some((n) => n.kind === 'account' && n.accountId === accountId)),
  ).toBe(true)
}

const about = (heard: readonly RevocationNotice[], id: string) =>
  heard.filter((notice) => Object.values(notice).includes(id))

function session(accountId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    digest: digest(),
    handle: randomBytes(16).toString('base64url'),
    accountId,
    securityEpoch: 1,
    createdAt: T0,
    lastSeenAt: T0,
    idleExpiresAt: at(1_800_000),
    absoluteExpiresAt: at(28_800_000),
    ...overrides,
  }
}

describe('stores announce revocations in the transaction of the change', () => {
  it('sessions: one notice per revoked or replaced session, one account notice for all of an account', async () => {
    const listener = await listening()
    const store = new PostgresSessionStore({ client: db.client })
    const accountId = `account-${randomUUID()}`
    const [one, two, three, four] = [
      session(accountId),
      session(accountId),
      session(accountId),
      session(accountId),
    ]
    for (const each of [one, two, three]) await store.create({ session: each })
    await store.revoke({ digest: one.digest })
    await store.revoke({ accountId, handle: two.handle })
    await store.create({ session: four, replaces: three.digest })
    await store.revoke({ digest: one.digest }) // nothing left to revoke: no notice
    await store.revoke({ accountId, all: true })
    await settle(listener)
    expect(about(listener.heard, one.digest)).toEqual([{ kind: 'session', digest: one.digest }])
    expect(about(listener.heard, two.digest)).toEqual([{ kind: 'session', digest: two.digest }])
    expect(about(listener.heard, three.digest)).toEqual([{ kind: 'session', digest: three.digest }])
    expect(about(listener.heard, accountId)).toEqual([{ kind: 'account', accountId }])
  })

  it('accounts: an epoch bump and a password change announce the account; a rehash does not', async () => {
    const listener = await listening()
    const store = new PostgresAccountStore({ client: db.client })
    const accountId = randomUUID()
    const created = await store.createAccount({
      accountId,
      username: `user.${randomBytes(6).toString('hex')}`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$first',
      now: T0,
    })
    expect(created.outcome).toBe('created')
    await store.setPassword({
      accountId,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$rehashed',
      expectedPasswordHash: '$argon2id$v=19$m=19456,t=2,p=1$first',
      rehash: true,
      bumpEpoch: false,
      now: T0,
    })
    await settle(listener)
    expect(about(listener.heard, accountId)).toEqual([])
    await store.setPassword({
      accountId,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$new',
      bumpEpoch: true,
      now: T0,
    })
    await store.bumpSecurityEpoch({ accountId, now: T0 })
    expect(await store.bumpSecurityEpoch({ accountId: `gone-${randomUUID()}`, now: T0 })).toBeNull()
    await settle(listener)
    expect(about(listener.heard, accountId)).toEqual([
      { kind: 'account', accountId },
      { kind: 'account', accountId },
    ])
  })

  it('refresh families: revoke, revokeAccount and detected reuse announce each family once', async () => {
    const listener = await listening()
    const store = new PostgresRefreshTokenStore({ client: db.client })
    const accountId = `account-${randomUUID()}`
    const family = async () => {
      const familyId = `family-${randomUUID()}`
      const token = digest()
      await store.createFamily({
        familyId,
        accountId,
        securityEpoch: 1,
        createdAt: T0,
        absoluteExpiresAt: at(86_400_000),
        token: { digest: token, expiresAt: at(3_600_000) },
      })
      return { familyId, token }
    }
    const [revoked, reused, rest] = [await family(), await family(), await family()]
    expect(await store.revoke({ familyId: revoked.familyId, now: at(1) })).toBe(true)
    expect(await store.revoke({ familyId: revoked.familyId, now: at(2) })).toBe(false)
    await store.rotate({
      presentedDigest: reused.token,
      next: { digest: digest(), expiresAt: at(7_200_000) },
      now: at(3),
    })
    const replay = await store.rotate({
      presentedDigest: reused.token,
      next: { digest: digest(), expiresAt: at(7_200_000) },
      now: at(4),
    })
    expect(replay.outcome).toBe('reused')
    expect(await store.revokeAccount({ accountId, now: at(5) })).toBe(1)
    await settle(listener)
    for (const { familyId } of [revoked, reused, rest]) {
      expect(about(listener.heard, familyId)).toEqual([{ kind: 'refresh-family', familyId }])
    }
  })

  it('API keys: a revocation and a rotation announce the key; a rotation that fails announces nothing', async () => {
    const listener = await listening()
    const { service, store } = apiKeyInstance(db.client, () => Date.now())
    const revoked = await service.issue({ ownerId: 'svc' })
    const rotated = await service.issue({ ownerId: 'svc' })
    const failing = await service.issue({ ownerId: 'svc' })
    await service.revoke(revoked.keyId)
    await service.rotate(rotated.keyId)
    // The replacement's id is taken: the transaction (with its revocation and its notice) rolls back.
    const { revokedAt: _revoked, ...taken } = (await store.get(revoked.keyId)) ?? expect.fail('missing key')
    const code = await codeOf(
      store.rotate({ currentKeyId: failing.keyId, replacement: taken, now: new Date() }),
    )
    expect(code).toBe('api_key.duplicate_key_id')
    expect((await service.verify(failing.value)).kind).toBe('valid')
    await settle(listener)
    expect(about(listener.heard, revoked.keyId)).toEqual([{ kind: 'api-key', keyId: revoked.keyId }])
    expect(about(listener.heard, rotated.keyId)).toEqual([{ kind: 'api-key', keyId: rotated.keyId }])
    expect(about(listener.heard, failing.keyId)).toEqual([])
  })
})

describe('the listener', () => {
  it('flushes every subscriber on a notice it cannot read (fail safe)', async () => {
    const listener = await listening()
    const before = listener.flushes()
    await db.client.pool.query('select pg_notify($1, $2)', [
      listener.notices.channel,
      'z:from-a-future-version',
    ])
    expect(await eventually(() => listener.flushes() > before)).toBe(true)
    expect(listener.notices.trusted()).toBe(true)
  })

  it('stops trusting a silently stalled connection within its lease, and recovers after', async () => {
    const { proxy, client } = await poolBehindProxy()
    const listener = await listening(client, { heartbeatMs: 100, leaseMs: 400 })
    expect(listener.notices.trusted()).toBe(true)
    const stalledAt = Date.now()
    proxy.stall()
    // Only the lease can tell a silent stall: untrusted within a few leases (one when idle; the margin is
    // for timers firing late on a loaded machine), where without it the listener would stay trusted.
    expect(await eventually(() => !listener.notices.trusted(), 5_000)).toBe(true)
    expect(Date.now() - stalledAt).toBeLessThan(2_500)
    proxy.cut()
    proxy.resume()
    expect(await eventually(() => listener.notices.trusted(), 10_000)).toBe(true)
    expect(listener.notices.reconnects).toBeGreaterThanOrEqual(1)
  })

  it('is trusted only once a heartbeat came back: listening is not enough', async () => {
    // The heartbeats go through the pool (held by the proxy); the listening connection goes direct.
    const { proxy, client } = await poolBehindProxy()
    proxy.stall()
    const problems: string[] = []
    const notices = new PostgresRevocationNotices({
      client,
      connectionString: db.database.connectionString,
      heartbeatMs: 100,
      leaseMs: 400,
      reconnectDelayMs: 20,
      onProblem: (problem) => problems.push(problem.message),
    })
    open.push(notices)
    void notices.start()
    expect(await eventually(() => notices.state === 'listening')).toBe(true)
    for (let sample = 0; sample < 30; sample += 1) {
      expect(notices.trusted()).toBe(false)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    proxy.resume()
    expect(await eventually(() => notices.trusted(), 10_000)).toBe(true)
    // Its heartbeats were never sent while held: nothing to blame on a pooler.
    expect(problems).toEqual([])
  })

  it('keeps its connection while the pool is slow to send heartbeats: the trust lapses, then returns', async () => {
    // The heartbeats go through the pool (behind the proxy); the listening connection goes direct.
    const { proxy, client } = await poolBehindProxy()
    const problems: string[] = []
    const notices = new PostgresRevocationNotices({
      client,
      connectionString: db.database.connectionString,
      heartbeatMs: 100,
      leaseMs: 400,
      reconnectDelayMs: 20,
      onProblem: (problem) => problems.push(problem.message),
    })
    open.push(notices)
    await notices.start()
    expect(notices.trusted()).toBe(true)
    // A saturated pool: heartbeats wait for a connection for three leases.
    proxy.stall()
    expect(await eventually(() => !notices.trusted(), 2_000)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    expect(notices.trusted()).toBe(false)
    expect(notices.state).toBe('listening')
    proxy.resume()
    expect(await eventually(() => notices.trusted(), 10_000)).toBe(true)
    // Nothing was wrong with the listening connection: it was never replaced, and nothing was blamed.
    expect(notices.reconnects).toBe(0)
    expect(problems).toEqual([])
  })

  it('hears only the channel of its schema', async () => {
    const schema = `rev_${randomBytes(4).toString('hex')}`
    const scoped = createPostgresClient({
      connectionString: db.database.connectionString,
      schema,
      maxConnections: 2,
    })
    open.push(scoped)
    await migrate(scoped)
    expect(revocationChannel(schema)).not.toBe(revocationChannel(undefined))
    const inSchema = await listening(scoped)
    const inPublic = await listening()
    const accountId = `account-${randomUUID()}`
    await new PostgresSessionStore({ client: scoped }).create({ session: session(accountId) })
    await new PostgresSessionStore({ client: scoped }).revoke({ accountId, all: true })
    await settle(inSchema)
    await settle(inPublic)
    expect(about(inSchema.heard, accountId)).toHaveLength(1)
    expect(about(inPublic.heard, accountId)).toEqual([])
  })

  it('is never trusted after close, and publish refuses what is not a notice', async () => {
    const listener = await listening()
    expect(await codeOf(listener.notices.publish({ kind: 'account', accountId: '' }))).toBe(
      'revocation.invalid_notice',
    )
    await listener.notices.close()
    expect(listener.notices.trusted()).toBe(false)
    expect(listener.notices.state).toBe('closed')
  })
})

describe('PostgresSessionStore.getWithAccountEpoch', () => {
  it("answers a live session with its account's current epoch in one statement, null epoch for a gone account", async () => {
    const sessions = new PostgresSessionStore({ client: db.client })
    const accounts = new PostgresAccountStore({ client: db.client })
    const accountId = randomUUID()
    await accounts.createAccount({
      accountId,
      username: `user.${randomBytes(6).toString('hex')}`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$first',
      now: T0,
    })
    const mine = session(accountId)
    const orphan = session(`gone-${randomUUID()}`)
    await sessions.create({ session: mine })
    await sessions.create({ session: orphan })
    await accounts.bumpSecurityEpoch({ accountId, now: T0 })
    expect(await sessions.getWithAccountEpoch(mine.digest, T0)).toEqual({ session: mine, accountEpoch: 2 })
    expect(await sessions.getWithAccountEpoch(orphan.digest, T0)).toEqual({
      session: orphan,
      accountEpoch: null,
    })
    expect(await sessions.getWithAccountEpoch(mine.digest, at(1_800_000))).toBeNull()
    expect(await sessions.getWithAccountEpoch(digest(), T0)).toBeNull()
  })
})
