import { randomBytes } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createPostgresClient, type PostgresClient, PostgresOAuthTransactionStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'
import {
  CALLBACK,
  manualClock,
  sampleTransaction,
  transactionFixtures,
} from './support/oauth-transactions.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const fixtures = transactionFixtures()

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : `<${String(error)}>`
  }
}

const start = (service: ReturnType<typeof fixtures.instance>['service'], extra: object = {}) =>
  service.start({ provider: 'acme', operation: 'login', redirectUri: CALLBACK, scopes: ['openid'], ...extra })

async function rowsWithState(stateDigest: Uint8Array): Promise<number> {
  const { rows } = await db.client.pool.query<{ count: number }>(
    'select count(*)::int as count from portcullis_oauth_transactions where state_digest = $1',
    [Buffer.from(stateDigest)],
  )
  return rows[0]?.count ?? -1
}

describe('PostgresOAuthTransactionStore at rest', () => {
  it('stores digests and envelopes: no state, browser binding, session binding, verifier or nonce', async () => {
    const { service } = fixtures.instance(db.client)
    const sessionBinding = `session-${randomBytes(8).toString('hex')}`
    const started = await start(service, { sessionBinding })
    const { rows } = await db.client.pool.query<{ row: string; verifier: string; nonce: string }>(
      `select t::text as row, pkce_verifier_envelope as verifier, nonce_envelope as nonce
         from portcullis_oauth_transactions t where state_digest = $1`,
      [Buffer.from(started.transaction.stateDigest)],
    )
    expect(rows).toHaveLength(1)
    const text = rows.map((row) => row.row).join('\n')
    expect(text).toContain(Buffer.from(started.transaction.stateDigest).toString('hex'))
    expect(rows[0]?.verifier).toMatch(/^pe1\.test-1\.[A-Za-z0-9_-]+$/)
    expect(rows[0]?.nonce).toMatch(/^pe1\.test-1\.[A-Za-z0-9_-]+$/)
    const secrets = [
      started.state,
      started.browserBinding,
      sessionBinding,
      started.transaction.pkceVerifier,
      started.nonce ?? 'missing nonce',
    ]
    for (const secret of secrets) {
      for (const form of [
        secret,
        Buffer.from(secret).toString('hex'),
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret, 'base64url').toString('hex'),
      ]) {
        expect(text).not.toContain(form)
      }
    }
  })

  it('an envelope that is damaged or moved to another row is refused, and the transaction is burned', async () => {
    const { store } = fixtures.instance(db.client)
    const now = new Date()
    const [damaged, donor, receiver] = [
      sampleTransaction(now),
      sampleTransaction(now),
      sampleTransaction(now),
    ]
    for (const transaction of [damaged, donor, receiver]) await store.create(transaction)
    await db.client.pool.query(
      `update portcullis_oauth_transactions set pkce_verifier_envelope = 'pe1.test-1.AAAA' where state_digest = $1`,
      [Buffer.from(damaged.stateDigest)],
    )
    await db.client.pool.query(
      `update portcullis_oauth_transactions set nonce_envelope =
         (select nonce_envelope from portcullis_oauth_transactions where state_digest = $1)
       where state_digest = $2`,
      [Buffer.from(donor.stateDigest), Buffer.from(receiver.stateDigest)],
    )
    for (const transaction of [damaged, receiver]) {
      expect(await codeOf(store.consume(transaction, now))).toBe('protection.envelope_rejected')
      expect(await rowsWithState(transaction.stateDigest)).toBe(0)
    }
    expect((await store.consume(donor, now))?.nonce).toBe(donor.nonce)
  })

  it('the table refuses a lifetime over ten minutes even from outside the store', async () => {
    const error = await db.client.pool
      .query(
        `insert into portcullis_oauth_transactions (state_digest, binding_digest, provider, operation,
           redirect_uri, return_to, requested_scopes, pkce_verifier_envelope, created_at, expires_at)
         values ($1, $2, 'acme', 'login', $3, '/', '{}', 'pe1.test-1.AAAA', now(), now() + interval '11 minutes')`,
        [randomBytes(32), randomBytes(32), CALLBACK],
      )
      .catch((caught: unknown) => caught)
    expect((error as { code?: string }).code).toBe('23514')
  })
})

describe('OAuthTransactionService over PostgresOAuthTransactionStore', () => {
  it('a miss on another instance does not burn; a hit for the wrong operation or session does', async () => {
    const first = fixtures.instance(db.connect(2))
    const second = fixtures.instance(db.connect(2))
    const tab = await start(first.service)
    const other = await start(first.service)
    // Wrong browser binding, wrong state, wrong provider: misses that leave the transaction alone.
    for (const miss of [
      { state: tab.state, browserBinding: other.browserBinding, provider: 'acme' },
      { state: other.state, browserBinding: tab.browserBinding, provider: 'acme' },
      { state: tab.state, browserBinding: tab.browserBinding, provider: 'other' },
    ]) {
      expect(await codeOf(second.service.consume(miss))).toBe('oauth.transaction.invalid')
    }
    const consumed = await second.service.consume({
      state: tab.state,
      browserBinding: tab.browserBinding,
      provider: 'acme',
      operation: 'login',
    })
    expect(consumed.pkceVerifier).toBe(tab.transaction.pkceVerifier)
    expect(consumed.nonce).toBe(tab.nonce)
    expect(await rowsWithState(tab.transaction.stateDigest)).toBe(0)

    const wrongOperation = await start(first.service)
    const keyOf = (started: typeof tab) => ({
      state: started.state,
      browserBinding: started.browserBinding,
      provider: 'acme',
    })
    expect(await codeOf(second.service.consume({ ...keyOf(wrongOperation), operation: 'link' }))).toBe(
      'oauth.transaction.invalid',
    )
    expect(await codeOf(first.service.consume(keyOf(wrongOperation)))).toBe('oauth.transaction.invalid')

    const wrongSession = await start(first.service, { sessionBinding: 'session-a' })
    expect(
      await codeOf(second.service.consume({ ...keyOf(wrongSession), sessionBinding: 'session-b' })),
    ).toBe('oauth.transaction.invalid')
    expect(await codeOf(first.service.consume({ ...keyOf(wrongSession), sessionBinding: 'session-a' }))).toBe(
      'oauth.transaction.invalid',
    )
  })

  it('an expired transaction is never returned, and the lookup removes it', async () => {
    const clock = manualClock()
    const { service } = fixtures.instance(db.client, clock.now)
    const started = await start(service)
    clock.advance(600_000)
    expect(
      await codeOf(
        service.consume({ state: started.state, browserBinding: started.browserBinding, provider: 'acme' }),
      ),
    ).toBe('oauth.transaction.invalid')
    expect(await rowsWithState(started.transaction.stateDigest)).toBe(0)
  })

  it('consume is ONE statement, a DELETE ... RETURNING on the exact key', async () => {
    const client = db.connect(1)
    const { store } = fixtures.instance(client)
    const transaction = sampleTransaction(new Date())
    await store.create(transaction)
    const spy = vi.spyOn(client.pool, 'query')
    try {
      expect(await store.consume(transaction, new Date())).not.toBeNull()
      expect(spy).toHaveBeenCalledTimes(1)
      const text = String((spy.mock.calls[0]?.[0] as { text?: unknown } | undefined)?.text)
      expect(text).toMatch(/^delete from "portcullis_oauth_transactions" where .* returning /)
      for (const column of ['state_digest', 'binding_digest', 'provider'])
        expect(text).toContain(`"${column}" = `)
    } finally {
      spy.mockRestore()
    }
  })

  it('keeps every field exactly, a large security epoch and a zero max age included', async () => {
    const { store } = fixtures.instance(db.client)
    const now = new Date(Math.floor(Date.now() / 1000) * 1000 + 123)
    const transaction = sampleTransaction(now, {
      operation: 'reauthenticate',
      accountId: 'account-1',
      stepUpPurpose: 'payments.approve',
      maxAuthenticationAge: 0,
      securityEpoch: Number.MAX_SAFE_INTEGER,
      providerAccountId: 'pa-1',
      expectedIssuer: 'https://idp.example',
      sessionBindingDigest: randomBytes(32),
      requestedScopes: ['profile', 'openid', 'openid'],
      nonce: null,
    })
    await store.create(transaction)
    const consumed = await store.consume(transaction, now)
    expect(consumed?.toJSON()).toEqual(transaction.toJSON())
    expect(consumed?.pkceVerifier).toBe(transaction.pkceVerifier)
    expect(consumed?.nonce).toBeNull()
    expect(Buffer.from(consumed?.sessionBindingDigest ?? [])).toEqual(
      Buffer.from(transaction.sessionBindingDigest ?? [1]),
    )
  })
})

describe('PostgresOAuthTransactionStore input and failures', () => {
  it('refuses malformed keys, times and records with typed codes', async () => {
    const { store } = fixtures.instance(db.client)
    const transaction = sampleTransaction(new Date())
    expect(await codeOf(store.consume({ ...transaction, stateDigest: new Uint8Array(31) }, new Date()))).toBe(
      'oauth.transaction.key_invalid',
    )
    expect(await codeOf(store.consume({ ...transaction, provider: ' ' }, new Date()))).toBe(
      'oauth.transaction.key_invalid',
    )
    expect(await codeOf(store.consume(transaction, new Date(Number.NaN)))).toBe(
      'oauth.transaction.time_invalid',
    )
    expect(await codeOf(store.create({ ...transaction } as typeof transaction))).toBe(
      'oauth.transaction.record_invalid',
    )
    expect(
      () => new PostgresOAuthTransactionStore({ client: db.client, protector: undefined as never }),
    ).toThrow(expect.objectContaining({ code: 'oauth.transaction_store.protector_required' }))
    expect(
      () =>
        new PostgresOAuthTransactionStore({ client: {} as PostgresClient, protector: fixtures.protector }),
    ).toThrow(expect.objectContaining({ code: 'oauth.transaction_store.options' }))
  })

  it('a database outage is postgres.unavailable for the store and 503-class for the service', async () => {
    const down = createPostgresClient({
      connectionString: 'postgres://app:s3cret@127.0.0.1:1/x',
      maxConnections: 1,
    })
    try {
      const { store, service } = fixtures.instance(down)
      const transaction = sampleTransaction(new Date())
      for (const attempt of [
        () => store.create(transaction),
        () => store.consume(transaction, new Date()),
        () => store.purgeExpired(new Date()),
      ]) {
        const error = await attempt().catch((caught: unknown) => caught)
        expect((error as { code?: string }).code).toBe('postgres.unavailable')
        expect(String(error)).not.toContain('s3cret')
      }
      expect(await codeOf(start(service))).toBe('oauth.transaction.unavailable')
      const token = randomBytes(32).toString('base64url')
      expect(await codeOf(service.consume({ state: token, browserBinding: token, provider: 'acme' }))).toBe(
        'oauth.transaction.unavailable',
      )
    } finally {
      await down.close()
    }
  })
})

describe('PostgresOAuthTransactionStore across app instances', () => {
  it('32 callbacks for one transaction over two instances: exactly one consumes it', async () => {
    const instances = [fixtures.instance(db.connect(8)), fixtures.instance(db.connect(8))]
    for (let round = 0; round < 5; round++) {
      const started = await start(instances[round % 2]?.service ?? fixtures.instance(db.client).service)
      const key = { state: started.state, browserBinding: started.browserBinding, provider: 'acme' }
      const results = await Promise.allSettled(
        Array.from({ length: 32 }, (_, index) => instances[index % 2]?.service.consume(key)),
      )
      const winners = results.filter((result) => result.status === 'fulfilled')
      expect(winners).toHaveLength(1)
      const losers = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []))
      expect(
        new Set(losers.map((reason) => (isPortcullisError(reason) ? reason.code : String(reason)))),
      ).toEqual(new Set(['oauth.transaction.invalid']))
    }
  })
})
