import { afterAll, describe, expect, it, vi } from 'vitest'
import { purgeExpiredOAuthTransactions } from '../src/index.js'
import { migratedDatabase } from './support/database.js'
import { sampleTransaction, transactionFixtures } from './support/oauth-transactions.js'

const NOW = new Date(Date.UTC(2031, 6, 1, 12, 0, 0))
const minutes = (count: number) => new Date(NOW.getTime() + count * 60_000)

/** A fresh database per case: the purge counts every expired row in the table. */
async function seeded(expired: number, live: number) {
  const db = await migratedDatabase()
  const { store } = transactionFixtures().instance(db.client)
  const made = {
    expired: Array.from({ length: expired }, (_, index) => sampleTransaction(minutes(-20 - index))),
    // Expiring exactly at NOW counts as expired; the live ones expire later.
    boundary: sampleTransaction(minutes(-10)),
    live: Array.from({ length: live }, (_, index) => sampleTransaction(minutes(-9 + index))),
  }
  for (const transaction of [...made.expired, made.boundary, ...made.live]) await store.create(transaction)
  const count = async () =>
    (
      await db.client.pool.query<{ count: number }>(
        'select count(*)::int as count from portcullis_oauth_transactions',
      )
    ).rows[0]?.count
  return { db, store, made, count }
}

const opened: Array<{ close(): Promise<void> }> = []
afterAll(() => Promise.all(opened.map((db) => db.close())))
const probe = await migratedDatabase()
opened.push(probe)

describe('purging expired OAuth transactions', () => {
  it('deletes expired rows in bounded batches, one statement each, and leaves live ones usable', async () => {
    const { db, store, made, count } = await seeded(6, 3)
    opened.push(db)
    const spy = vi.spyOn(db.client.pool, 'query')
    const report = await store.purgeExpired(NOW, { batchSize: 3 })
    const statements = spy.mock.calls.length
    spy.mockRestore()
    expect(report).toEqual({ deleted: 7, more: false })
    expect(statements).toBe(3)
    expect(await count()).toBe(3)
    for (const transaction of made.live) expect(await store.consume(transaction, NOW)).not.toBeNull()
  })

  it('stops after maxBatches and says there is more', async () => {
    const { db, count } = await seeded(5, 1)
    opened.push(db)
    expect(await purgeExpiredOAuthTransactions(db.client, { now: NOW, batchSize: 2, maxBatches: 2 })).toEqual(
      {
        deleted: 4,
        more: true,
      },
    )
    expect(await count()).toBe(3)
    expect(await purgeExpiredOAuthTransactions(db.client, { now: NOW, batchSize: 2 })).toEqual({
      deleted: 2,
      more: false,
    })
    expect(await count()).toBe(1)
  })

  it('refuses bounds out of range with a typed code', async () => {
    const { db } = await seeded(0, 0)
    opened.push(db)
    for (const options of [{ batchSize: 0 }, { batchSize: 10_001 }, { maxBatches: 1.5 }]) {
      const error = await purgeExpiredOAuthTransactions(db.client, { now: NOW, ...options }).catch(
        (caught: unknown) => caught,
      )
      expect((error as { code?: string }).code).toBe('oauth.transaction_store.purge_options')
    }
  })

  it('purges running on several instances at once delete each row once and never fail', async () => {
    const { db, count } = await seeded(200, 5)
    opened.push(db)
    const pools = [db.connect(4), db.connect(4), db.connect(4)]
    const reports = await Promise.all(
      pools.map((client) => purgeExpiredOAuthTransactions(client, { now: NOW, batchSize: 7 })),
    )
    expect(reports.reduce((sum, report) => sum + report.deleted, 0)).toBe(201)
    expect(await count()).toBe(5)
  })
})
