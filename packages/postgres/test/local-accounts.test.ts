import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { SessionRecord } from '@portcullis/core/local-accounts'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createPostgresClient,
  PostgresAccountStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const T0 = new Date('2031-03-04T05:06:07.089Z')
const at = (ms: number) => new Date(T0.getTime() + ms)
const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex')
const handle = () => randomBytes(16).toString('base64url')

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    digest: digest(),
    handle: handle(),
    accountId: `account-${randomUUID()}`,
    securityEpoch: 1,
    createdAt: T0,
    lastSeenAt: T0,
    idleExpiresAt: at(1_800_000),
    absoluteExpiresAt: at(28_800_000),
    ...overrides,
  }
}

describe('Postgres local-account stores', () => {
  it('keep millisecond timestamps and epochs up to MAX_SAFE_INTEGER exactly', async () => {
    const sessions = new PostgresSessionStore({ client: db.client })
    const saved = session({
      securityEpoch: Number.MAX_SAFE_INTEGER,
      lastSeenAt: at(1),
      idleExpiresAt: at(999),
    })
    await sessions.create({ session: saved })
    expect(await sessions.get(saved.digest, T0)).toEqual(saved)
    const refresh = new PostgresRefreshTokenStore({ client: db.client })
    const familyId = `family-${randomUUID()}`
    const token = digest()
    await refresh.createFamily({
      familyId,
      accountId: 'account-1',
      securityEpoch: Number.MAX_SAFE_INTEGER,
      createdAt: T0,
      absoluteExpiresAt: at(86_400_007),
      token: { digest: token, expiresAt: at(3_600_003) },
    })
    const rotated = await refresh.rotate({
      presentedDigest: token,
      next: { digest: digest(), expiresAt: at(90_000_000) },
      now: at(5),
    })
    expect(rotated).toEqual({
      outcome: 'rotated',
      family: {
        familyId,
        accountId: 'account-1',
        securityEpoch: Number.MAX_SAFE_INTEGER,
        createdAt: T0,
        absoluteExpiresAt: at(86_400_007),
      },
      expiresAt: at(86_400_007),
    })
  })

  it('share sessions between app instances: created on one, touched, listed and revoked on another', async () => {
    const [first, second] = [
      new PostgresSessionStore({ client: db.connect(2) }),
      new PostgresSessionStore({ client: db.connect(2) }),
    ]
    const saved = session()
    await first.create({ session: saved })
    expect(
      await second.touch({ digest: saved.digest, lastSeenAt: at(60_000), idleExpiresAt: at(1_860_000) }),
    ).toBe(true)
    expect((await first.list({ accountId: saved.accountId, now: at(60_000) }))[0]?.idleExpiresAt).toEqual(
      at(1_860_000),
    )
    expect(await second.revoke({ accountId: saved.accountId, handle: saved.handle })).toBe(1)
    expect(await first.get(saved.digest, at(60_000))).toBeNull()
  })

  it('work with prepared statements disabled, and with named ones reused on one connection', async () => {
    for (const preparedStatements of [false, true]) {
      const client = createPostgresClient({
        connectionString: db.database.connectionString,
        maxConnections: 1,
        preparedStatements,
      })
      try {
        const sessions = new PostgresSessionStore({ client })
        const limits = new PostgresRateLimitStore({ client })
        const saved = session()
        await sessions.create({ session: saved })
        const key = digest()
        for (let attempt = 1; attempt <= 3; attempt += 1) {
          expect(await sessions.get(saved.digest, at(attempt))).toEqual(saved)
          expect(
            await sessions.touch({ digest: saved.digest, lastSeenAt: T0, idleExpiresAt: at(1_800_000) }),
          ).toBe(true)
          expect((await limits.consume({ key, limit: 2, windowSeconds: 60, now: T0 })).count).toBe(attempt)
        }
      } finally {
        await client.close()
      }
    }
  })

  it('delete a family with its tokens (what the expiry sweep relies on), and the schema refuses an idle expiry past the absolute one', async () => {
    const refresh = new PostgresRefreshTokenStore({ client: db.client })
    const familyId = `family-${randomUUID()}`
    await refresh.createFamily({
      familyId,
      accountId: 'account-1',
      securityEpoch: 1,
      createdAt: T0,
      absoluteExpiresAt: at(60_000),
      token: { digest: digest(), expiresAt: at(60_000) },
    })
    await db.client.pool.query('delete from portcullis_refresh_families where family_id = $1', [familyId])
    const left = await db.client.pool.query('select 1 from portcullis_refresh_tokens where family_id = $1', [
      familyId,
    ])
    expect(left.rowCount).toBe(0)
    const saved = session()
    await new PostgresSessionStore({ client: db.client }).create({ session: saved })
    await expect(
      db.client.pool.query(
        'update portcullis_sessions set idle_expires_at = absolute_expires_at + interval $$1 second$$ where digest = $1',
        [saved.digest],
      ),
    ).rejects.toMatchObject({ code: '23514' })
  })

  it('refuse a missing or foreign client with a configuration error', () => {
    for (const Store of [
      PostgresAccountStore,
      PostgresSessionStore,
      PostgresRefreshTokenStore,
      PostgresRateLimitStore,
    ]) {
      expect(() => new Store({ client: {} as PostgresClient })).toThrow(
        expect.objectContaining({ code: 'local.invalid_config', errorClass: 'configuration' }),
      )
    }
  })

  it('turn a database outage into postgres.unavailable, with no credentials in the message', async () => {
    const down = createPostgresClient({
      connectionString: 'postgres://app:s3cret@127.0.0.1:1/x',
      maxConnections: 1,
    })
    try {
      const accounts = new PostgresAccountStore({ client: down })
      const sessions = new PostgresSessionStore({ client: down })
      const refresh = new PostgresRefreshTokenStore({ client: down })
      const limits = new PostgresRateLimitStore({ client: down })
      const calls: (() => Promise<unknown>)[] = [
        () => accounts.createAccount({ accountId: 'a', username: 'alice', passwordHash: 'h', now: T0 }),
        () => accounts.findPassword({ username: 'alice' }),
        () => accounts.setPassword({ accountId: 'a', passwordHash: 'h', now: T0, bumpEpoch: true }),
        () => sessions.create({ session: session(), replaces: digest() }),
        () => sessions.get(digest(), T0),
        () => sessions.touch({ digest: digest(), lastSeenAt: T0, idleExpiresAt: at(1) }),
        () =>
          refresh.rotate({
            presentedDigest: digest(),
            next: { digest: digest(), expiresAt: at(1) },
            now: T0,
          }),
        () => refresh.revokeAccount({ accountId: 'a', now: T0 }),
        () => limits.consume({ key: 'k', limit: 1, windowSeconds: 1, now: T0 }),
        () => limits.reset('k'),
      ]
      for (const call of calls) {
        const error = await call().then(
          () => undefined,
          (caught: unknown) => caught,
        )
        expect(error).toMatchObject({ code: 'postgres.unavailable', errorClass: 'unavailable' })
        expect(String((error as Error).message)).not.toContain('s3cret')
      }
    } finally {
      await down.close()
    }
  })
})

/** Two pools, as two app instances have; calls alternate between them. */
function twoInstances<Store>(create: (client: PostgresClient) => Store): readonly Store[] {
  return [create(db.connect(8)), create(db.connect(8))]
}

describe('Postgres local-account stores across app instances', () => {
  it('100 attempts with limit 25 on two instances: exactly 25 allowed, each count once', async () => {
    const stores = twoInstances((client) => new PostgresRateLimitStore({ client }))
    const key = digest()
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        stores[index % 2]?.consume({ key, limit: 25, windowSeconds: 60, now: T0 }),
      ),
    )
    expect(decisions.filter((decision) => decision?.allowed)).toHaveLength(25)
    expect(new Set(decisions.map((decision) => decision?.count)).size).toBe(100)
  })

  it('32 uses of one refresh token on two instances: one rotated, 31 reused, the family revoked', async () => {
    const stores = twoInstances((client) => new PostgresRefreshTokenStore({ client }))
    const token = digest()
    await stores[0]?.createFamily({
      familyId: `family-${randomUUID()}`,
      accountId: 'account-1',
      securityEpoch: 1,
      createdAt: T0,
      absoluteExpiresAt: at(86_400_000),
      token: { digest: token, expiresAt: at(3_600_000) },
    })
    const nexts = Array.from({ length: 32 }, () => digest())
    const results = await Promise.all(
      nexts.map((next, index) =>
        stores[index % 2]?.rotate({
          presentedDigest: token,
          next: { digest: next, expiresAt: at(7_200_000) },
          now: at(1),
        }),
      ),
    )
    expect(results.filter((result) => result?.outcome === 'rotated')).toHaveLength(1)
    expect(results.filter((result) => result?.outcome === 'reused')).toHaveLength(31)
    const winner = nexts[results.findIndex((result) => result?.outcome === 'rotated')] ?? ''
    const after = await stores[1]?.rotate({
      presentedDigest: winner,
      next: { digest: digest(), expiresAt: at(9_000_000) },
      now: at(2),
    })
    expect(after).toEqual({ outcome: 'invalid' })
  })

  it('control: a read-then-write counter on the same two pools does lose counts, so the race above is real', async () => {
    const pools = [db.connect(8).pool, db.connect(8).pool]
    const key = digest()
    await pools[0]?.query(
      "insert into portcullis_rate_limits (limit_key, attempts, reset_at) values ($1, 1, now() + interval '1 hour')",
      [key],
    )
    const counts = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const pool = pools[index % 2]
        const read = await pool?.query<{ attempts: string }>(
          'select attempts from portcullis_rate_limits, pg_sleep(0.02) where limit_key = $1',
          [key],
        )
        const next = Number(read?.rows[0]?.attempts) + 1
        await pool?.query('update portcullis_rate_limits set attempts = $2 where limit_key = $1', [key, next])
        return next
      }),
    )
    expect(new Set(counts).size).toBeLessThan(20)
  })
})
