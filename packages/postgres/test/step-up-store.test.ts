import { createHash, randomBytes } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { type StepUpRecord, StepUpService } from '@portcullis/core/step-up'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresClient, PostgresStepUpStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const digest = () => createHash('sha256').update(randomBytes(32)).digest('base64url')
const T0 = new Date('2031-03-04T05:06:07.000Z')

function record(overrides: Partial<StepUpRecord> = {}): StepUpRecord {
  return {
    digest: digest(),
    accountId: 'account-1',
    purpose: 'payments.approve',
    securityEpoch: 3,
    sessionDigest: digest(),
    issuedAt: T0,
    authenticatedAt: T0,
    expiresAt: new Date(T0.getTime() + 300_000),
    ...overrides,
  }
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : `<${String(error)}>`
  }
}

function instance(client = db.connect(4)) {
  const store = new PostgresStepUpStore({ client })
  return { store, service: new StepUpService({ store, clock: () => T0 }) }
}

const binding = {
  accountId: 'account-1',
  purpose: 'payments.approve',
  securityEpoch: 3,
  sessionBinding: 'session-1',
}

describe('PostgresStepUpStore', () => {
  it('a credential issued on one instance is consumed once on another', async () => {
    const [first, second] = [instance(), instance()]
    const credential = await first.service.issue(binding)
    const consumed = await second.service.consume({ ...binding, token: credential.reveal() })
    expect(consumed.kind).toBe('consumed')
    expect(await first.service.consume({ ...binding, token: credential.reveal() })).toEqual({
      kind: 'rejected',
      reason: 'unknown',
    })
  })

  it('stores digests only: the token is nowhere in the table', async () => {
    const { service } = instance(db.client)
    const credential = await service.issue({ ...binding, sessionBinding: 'session-at-rest' })
    const dump = await db.client.pool.query<{ row: string }>(
      'select t::text as row from portcullis_step_up_credentials t',
    )
    const text = dump.rows.map((row) => row.row).join('\n')
    expect(text).toContain(createHash('sha256').update(credential.reveal()).digest('base64url'))
    expect(text).not.toContain(credential.reveal())
    expect(text).not.toContain('session-at-rest')
  })

  it('refuses malformed records and digests with step-up.invalid_input and stores nothing', async () => {
    const store = new PostgresStepUpStore({ client: db.client })
    const bad: Partial<StepUpRecord>[] = [
      { digest: 'short' },
      { sessionDigest: 'not a digest' },
      { accountId: ' padded' },
      { purpose: 'has space' },
      { securityEpoch: -1 },
      { securityEpoch: 1.5 },
      { issuedAt: new Date(Number.NaN) },
      { expiresAt: T0 },
    ]
    for (const overrides of bad) {
      const candidate = record(overrides)
      expect(await codeOf(store.save(candidate)), JSON.stringify(overrides)).toBe('step-up.invalid_input')
      if (typeof candidate.digest === 'string' && candidate.digest.length === 43) {
        expect(await store.take(candidate.digest)).toBeNull()
      }
    }
    expect(await codeOf(store.take("x' or '1'='1"))).toBe('step-up.invalid_input')
    expect(await codeOf(store.purgeExpired(new Date(Number.NaN)))).toBe('step-up.invalid_input')
  })

  it('keeps the exact timestamps and a large security epoch', async () => {
    const store = new PostgresStepUpStore({ client: db.client })
    const saved = record({ securityEpoch: Number.MAX_SAFE_INTEGER, issuedAt: new Date(T0.getTime() + 7) })
    await store.save(saved)
    expect(await store.take(saved.digest)).toEqual(saved)
  })

  it('a database outage is postgres.unavailable for the store and `unavailable` for the service', async () => {
    const down = createPostgresClient({
      connectionString: 'postgres://app:s3cret@127.0.0.1:1/x',
      maxConnections: 1,
    })
    try {
      const store = new PostgresStepUpStore({ client: down })
      expect(await codeOf(store.save(record()))).toBe('postgres.unavailable')
      expect(await codeOf(store.take(digest()))).toBe('postgres.unavailable')
      const service = new StepUpService({ store, clock: () => T0 })
      const token = randomBytes(32).toString('base64url')
      expect((await service.consume({ ...binding, token })).kind).toBe('unavailable')
    } finally {
      await down.close()
    }
  })
})

describe('PostgresStepUpStore across app instances', () => {
  it('32 redemptions of one credential over two instances: exactly one succeeds', async () => {
    const instances = [instance(), instance()]
    const credential = await instances[0]?.service.issue(binding)
    const token = credential?.reveal() ?? ''
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, index) => instances[index % 2]?.service.consume({ ...binding, token })),
    )
    expect(results.filter((result) => result?.kind === 'consumed')).toHaveLength(1)
    expect(results.filter((result) => result?.kind === 'rejected')).toHaveLength(31)
  })
})
