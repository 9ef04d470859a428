import { createHash } from 'node:crypto'
import { sampleApiKeyRecord } from '@portcullis/conformance/api-keys'
import { type ApiKeyRecord, ApiKeyUsageRecorder, parseApiKey } from '@portcullis/core/api-keys'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createPostgresClient, PostgresApiKeyStore, type PostgresClient } from '../src/index.js'
import { apiKeyInstance, codeOf, manualClock, T0 } from './support/api-keys.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const at = (seconds: number) => new Date(T0 + seconds * 1000)

/** Runs `work` and returns the statements it sent through the pool (`pool.query`). */
async function statementsOf(client: PostgresClient, work: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(client.pool, 'query')
  try {
    await work()
    return spy.mock.calls.map(([first]) =>
      typeof first === 'string' ? first : String((first as { text?: unknown }).text),
    )
  } finally {
    spy.mockRestore()
  }
}

describe('ApiKeyService over PostgresApiKeyStore', () => {
  it('issues, verifies, rotates with overlap and revokes, across two app instances', async () => {
    const clock = manualClock()
    const first = apiKeyInstance(db.connect(2), clock.now)
    const second = apiKeyInstance(db.connect(2), clock.now)
    const issued = await first.service.issue({ ownerId: 'svc-reports', restrictions: { scopes: ['read'] } })
    const original = issued.value
    expect(await second.service.verify(original)).toMatchObject({
      kind: 'valid',
      record: { ownerId: 'svc-reports', restrictions: { scopes: ['read'] } },
    })
    const forged = `${original.slice(0, -43)}${'B'.repeat(42)}A`
    expect(await second.service.verify(forged)).toEqual({
      kind: 'invalid',
      reason: 'api-key: digest mismatch',
    })

    clock.advance(10_000)
    const rotated = await second.service.rotate(issued.keyId, { overlapSeconds: 60 })
    const replacement = rotated.value
    expect((await first.service.verify(replacement)).kind).toBe('valid')
    clock.advance(59_000)
    expect((await first.service.verify(original)).kind).toBe('valid')
    clock.advance(2_000)
    expect(await first.service.verify(original)).toEqual({ kind: 'invalid', reason: 'api-key: revoked' })
    expect(await codeOf(first.service.rotate(issued.keyId))).toBe('api_key.not_active')

    await first.service.revoke(rotated.keyId)
    expect(await second.service.verify(replacement)).toEqual({ kind: 'invalid', reason: 'api-key: revoked' })
    expect(await codeOf(second.service.revoke('AAAAAAAAAAAAAAAA'))).toBe('api_key.not_found')
  })

  it('revoking a key inside its rotation overlap ends the overlap at once', async () => {
    const clock = manualClock()
    const { service } = apiKeyInstance(db.client, clock.now)
    const issued = await service.issue({ ownerId: 'svc-overlap' })
    await service.rotate(issued.keyId, { overlapSeconds: 3600 })
    clock.advance(1_000)
    expect((await service.verify(issued.value)).kind).toBe('valid')
    await service.revoke(issued.keyId)
    expect(await service.verify(issued.value)).toEqual({ kind: 'invalid', reason: 'api-key: revoked' })
  })

  it('costs exactly one statement per verification, and none for a malformed key', async () => {
    const client = db.connect(2)
    const { service } = apiKeyInstance(client)
    const issued = await service.issue({ ownerId: 'svc-lookup' })
    // Warm: the first lookup on a connection prepares the named statement.
    await service.verify(issued.value)
    const valid = await statementsOf(client, () => service.verify(issued.value) as Promise<unknown>)
    expect(valid).toHaveLength(1)
    expect(valid[0]).toMatch(
      /^select .* from "portcullis_api_keys" where "portcullis_api_keys"."key_id" = \$1$/,
    )
    expect(await statementsOf(client, async () => service.verify('pgtest_not-a-key'))).toHaveLength(0)
  })

  it('uses a named prepared statement unless preparedStatements is off', async () => {
    const prepared = async (client: PostgresClient) => {
      const { service } = apiKeyInstance(client)
      await service.verify((await service.issue({ ownerId: 'svc-prepared' })).value)
      const { rows } = await client.pool.query<{ name: string }>('select name from pg_prepared_statements')
      return rows.map((row) => row.name)
    }
    // One connection per pool, so the catalog query runs in the session that served the lookup.
    expect(await prepared(db.connect(1))).toContain('portcullis_api_keys_get')
    const single = db.connect(1)
    expect(await prepared({ ...single, preparedStatements: false })).not.toContain('portcullis_api_keys_get')
  })
})

describe('PostgresApiKeyStore at rest', () => {
  it('keeps the HMAC digest and never the key or its secret', async () => {
    const { service } = apiKeyInstance(db.client)
    const issued = await service.issue({ ownerId: 'svc-at-rest', label: 'at rest' })
    const value = issued.value
    const parts = parseApiKey(value, 'pgtest')
    expect(parts).toBeDefined()
    const secret = parts?.secret ?? ''
    const { rows } = await db.client.pool.query<{ row: string }>(
      'select t::text as row from portcullis_api_keys t where key_id = $1',
      [issued.keyId],
    )
    const text = rows.map((row) => row.row).join('\n')
    expect(text).toContain(issued.keyId)
    const stored = (await service.verify(value)) as { record: ApiKeyRecord }
    expect(text).toContain(Buffer.from(stored.record.digest).toString('hex'))
    for (const form of [
      value,
      secret,
      Buffer.from(secret, 'base64url').toString('hex'),
      Buffer.from(secret, 'base64url').toString('base64'),
      createHash('sha256').update(value).digest('hex'),
    ]) {
      expect(text).not.toContain(form)
    }
  })
})

describe('PostgresApiKeyStore usage', () => {
  it('writes a busy batch of uses as ONE statement, keeping the latest time per key', async () => {
    const client = db.connect(2)
    const store = new PostgresApiKeyStore({ client })
    const records = [sampleApiKeyRecord(), sampleApiKeyRecord(), sampleApiKeyRecord()]
    for (const record of records) await store.create(record)
    const recorder = new ApiKeyUsageRecorder({ store, flushIntervalMs: 3_600_000 })
    for (let use = 0; use < 300; use++) {
      recorder.record((records[use % 3] as ApiKeyRecord).keyId, at(use).getTime())
    }
    recorder.record(sampleApiKeyRecord().keyId, at(1).getTime())
    const statements = await statementsOf(client, () => recorder.flush())
    expect(statements).toHaveLength(1)
    expect(statements[0]).toMatch(/update portcullis_api_keys/)
    expect(recorder.stats()).toMatchObject({ flushes: 1, flushFailures: 0 })
    const last = await Promise.all(records.map((record) => store.get(record.keyId)))
    expect(last.map((record) => record?.lastUsedAt?.getTime())).toEqual([
      at(297).getTime(),
      at(298).getTime(),
      at(299).getTime(),
    ])
    await recorder.close()
  })

  it('never moves lastUsedAt back, ignores unknown ids and sends nothing for an empty batch', async () => {
    const client = db.connect(2)
    const store = new PostgresApiKeyStore({ client })
    const record = sampleApiKeyRecord()
    await store.create(record)
    const stranger = sampleApiKeyRecord().keyId
    await store.recordUsage([
      { keyId: record.keyId, usedAt: at(50) },
      { keyId: record.keyId, usedAt: at(500) },
      { keyId: record.keyId, usedAt: at(70) },
      { keyId: stranger, usedAt: at(900) },
    ])
    expect((await store.get(record.keyId))?.lastUsedAt).toEqual(at(500))
    await store.recordUsage([{ keyId: record.keyId, usedAt: at(499) }])
    expect((await store.get(record.keyId))?.lastUsedAt).toEqual(at(500))
    expect(await store.get(stranger)).toBeUndefined()
    expect(await statementsOf(client, () => store.recordUsage([]))).toHaveLength(0)
    expect(await codeOf(store.recordUsage([{ keyId: record.keyId, usedAt: new Date(Number.NaN) }]))).toBe(
      'api_key.invalid_input',
    )
  })
})

describe('PostgresApiKeyStore input and failures', () => {
  it('refuses invalid records and arguments with typed codes and stores nothing', async () => {
    const store = new PostgresApiKeyStore({ client: db.client })
    const bad = sampleApiKeyRecord({ digest: new Uint8Array(31) })
    expect(await codeOf(store.create(bad))).toBe('api_key.invalid_record')
    expect(await store.get(bad.keyId)).toBeUndefined()
    const current = sampleApiKeyRecord()
    await store.create(current)
    const replacement = sampleApiKeyRecord()
    expect(
      await codeOf(store.rotate({ currentKeyId: current.keyId, replacement, now: new Date(Number.NaN) })),
    ).toBe('api_key.invalid_input')
    expect(
      await codeOf(
        store.rotate({ currentKeyId: current.keyId, replacement, now: at(100), overlapUntil: at(99) }),
      ),
    ).toBe('api_key.invalid_record')
    expect(await store.get(replacement.keyId)).toBeUndefined()
    expect((await store.get(current.keyId))?.revokedAt).toBeUndefined()
    expect(await codeOf(store.revoke(current.keyId, new Date('x')))).toBe('api_key.invalid_input')
    expect(await codeOf(store.revoke("x' or '1'='1", at(1)))).toBe('api_key.not_found')
    expect(await store.get('')).toBeUndefined()
    expect(() => new PostgresApiKeyStore({ client: {} as PostgresClient })).toThrow(
      expect.objectContaining({ code: 'api_key.store_options' }),
    )
  })

  it("lists an owner's keys in one statement that never selects the digest or pepper version", async () => {
    const client = db.connect(2)
    const { service, store } = apiKeyInstance(client)
    const issued = await service.issue({ ownerId: 'svc-listing', label: 'listed' })
    let listed: Awaited<ReturnType<typeof store.listByOwner>> = []
    const statements = await statementsOf(client, async () => {
      listed = await store.listByOwner({ ownerId: 'svc-listing', ownerKind: 'service' })
    })
    expect(statements).toHaveLength(1)
    expect(statements[0]).toMatch(/^select .* from "portcullis_api_keys" where/)
    expect(statements[0]).not.toMatch(/digest|pepper_version/)
    expect(listed.map((summary) => [summary.keyId, summary.label])).toEqual([[issued.keyId, 'listed']])
  })

  it('a database outage is postgres.unavailable for the store and `unavailable` for the service', async () => {
    const down = createPostgresClient({
      connectionString: 'postgres://app:s3cret@127.0.0.1:1/x',
      maxConnections: 1,
    })
    try {
      const { store, service } = apiKeyInstance(down)
      const record = sampleApiKeyRecord()
      for (const attempt of [
        () => store.get(record.keyId),
        () => store.create(record),
        () => store.rotate({ currentKeyId: record.keyId, replacement: sampleApiKeyRecord(), now: at(1) }),
        () => store.revoke(record.keyId, at(1)),
        () => store.recordUsage([{ keyId: record.keyId, usedAt: at(1) }]),
        () => store.listByOwner({ ownerId: record.ownerId, ownerKind: record.ownerKind }),
      ]) {
        const error = await attempt().catch((caught: unknown) => caught)
        expect((error as { code?: string }).code).toBe('postgres.unavailable')
        expect(String(error)).not.toContain('s3cret')
      }
      const value = `pgtest_${record.keyId}_${'A'.repeat(43)}`
      // The store's Retry-After hint reaches the verification (and from there the 503).
      expect(await service.verify(value)).toEqual({
        kind: 'unavailable',
        reason: 'api-key: store unavailable',
        retryAfterSeconds: 2,
      })
    } finally {
      await down.close()
    }
  })
})
