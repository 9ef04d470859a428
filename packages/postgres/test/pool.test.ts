import { isPortcullisError } from '@portcullis/core'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresClient, type PostgresClient, PostgresStepUpStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
const opened: PostgresClient[] = []
afterAll(async () => {
  await Promise.all(opened.map((client) => client.close()))
  await db.close()
})

function pool(options: Partial<Parameters<typeof createPostgresClient>[0]>): PostgresClient {
  const client = createPostgresClient({ connectionString: db.database.connectionString, ...options })
  opened.push(client)
  return client
}

async function failure(promise: Promise<unknown>): Promise<{ code?: string; retry?: unknown; ms: number }> {
  const started = performance.now()
  try {
    await promise
    return { ms: performance.now() - started }
  } catch (error) {
    return {
      ...(isPortcullisError(error) ? { code: error.code } : { code: `<${String(error)}>` }),
      retry: (error as { retryAfterSeconds?: unknown }).retryAfterSeconds,
      ms: performance.now() - started,
    }
  }
}

const DIGEST = 'a'.repeat(43)

/**
 * Takes the pool's one connection. On a loaded machine opening it can take longer than the short
 * connect timeout under test, which is the behaviour being tested, not a failure of the set-up: try
 * again, a bounded number of times.
 */
async function holdTheOnlyConnection(client: PostgresClient) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.pool.connect()
    } catch (error) {
      if (attempt === 20) throw error
    }
  }
}

describe('pool behaviour on a real server', () => {
  it('an exhausted pool answers unavailable with Retry-After within the connection timeout, then recovers', async () => {
    const client = pool({ maxConnections: 1, connectionTimeoutMs: 300 })
    const store = new PostgresStepUpStore({ client })
    const held = await holdTheOnlyConnection(client)
    let outcome: Awaited<ReturnType<typeof failure>>
    try {
      outcome = await failure(store.take(DIGEST))
    } finally {
      held.release()
    }
    expect(outcome.code).toBe('postgres.unavailable')
    expect(outcome.retry).toBe(2)
    expect(outcome.ms).toBeGreaterThanOrEqual(250)
    expect(outcome.ms).toBeLessThan(3_000)
    expect(await store.take(DIGEST)).toBeNull()
  })

  it('a statement stalled past the statement timeout is unavailable (never invalid), and the pool keeps working', async () => {
    const client = pool({ maxConnections: 1, statementTimeoutMs: 200 })
    const store = new PostgresStepUpStore({ client })
    const holder = await db.client.pool.connect()
    try {
      await holder.query('begin')
      await holder.query('lock table portcullis_step_up_credentials in access exclusive mode')
      const outcome = await failure(store.take(DIGEST))
      expect(outcome.code).toBe('postgres.unavailable')
      expect(outcome.ms).toBeLessThan(3_000)
    } finally {
      await holder.query('rollback')
      holder.release()
    }
    expect(await store.take(DIGEST)).toBeNull()
    expect(client.pool.totalCount).toBe(1)
  })

  it('closes connections left idle past the idle timeout', async () => {
    const client = pool({ maxConnections: 2, idleTimeoutMs: 100 })
    await Promise.all([client.ping(), client.ping()])
    expect(client.pool.totalCount).toBeGreaterThan(0)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(client.pool.totalCount).toBe(0)
    expect(await client.ping()).toBe(true)
  })
})

describe('pool settings are checked when the client is created', () => {
  it.each([
    ['maxConnections', 0],
    ['maxConnections', 1.5],
    ['statementTimeoutMs', -1],
    ['connectionTimeoutMs', 0],
    ['connectionTimeoutMs', '5000'],
    ['idleTimeoutMs', Number.NaN],
  ])('%s = %s is a configuration error', (option, value) => {
    let error: unknown
    try {
      createPostgresClient({ connectionString: db.database.connectionString, [option]: value })
    } catch (caught) {
      error = caught
    }
    expect(isPortcullisError(error) && [error.code, error.errorClass]).toEqual([
      'postgres.pool_options',
      'configuration',
    ])
  })
})
