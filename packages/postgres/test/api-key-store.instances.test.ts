import { sampleApiKeyRecord } from '@portcullis/conformance/api-keys'
import { isPortcullisError } from '@portcullis/core'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresApiKeyStore } from '../src/index.js'
import { T0 } from './support/api-keys.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const at = (seconds: number) => new Date(T0 + seconds * 1000)
const codeOf = (reason: unknown) => (isPortcullisError(reason) ? reason.code : `<${String(reason)}>`)

/** Two app instances: a store each, on its own pool. */
const instances = [
  new PostgresApiKeyStore({ client: db.connect(8) }),
  new PostgresApiKeyStore({ client: db.connect(8) }),
] as const
const on = (index: number) => instances[index % 2] as PostgresApiKeyStore

describe('PostgresApiKeyStore across app instances', () => {
  it('16 rotations of one key over two instances: exactly one wins, the rest are api_key.not_active', async () => {
    for (let round = 0; round < 5; round++) {
      const current = sampleApiKeyRecord({ expiresAt: at(86_400) })
      await on(round).create(current)
      const replacements = Array.from({ length: 16 }, () => sampleApiKeyRecord())
      const results = await Promise.allSettled(
        replacements.map((replacement, index) =>
          on(index).rotate({ currentKeyId: current.keyId, replacement, overlapUntil: at(160), now: at(100) }),
        ),
      )
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      const losers = results.flatMap((result) =>
        result.status === 'rejected' ? [codeOf(result.reason)] : [],
      )
      expect(new Set(losers)).toEqual(new Set(['api_key.not_active']))
      const inserted = await Promise.all(replacements.map((replacement) => on(1).get(replacement.keyId)))
      expect(inserted.filter(Boolean)).toHaveLength(1)
      const old = await on(0).get(current.keyId)
      expect(old?.revokedAt).toEqual(at(100))
      expect(old?.overlapUntil).toEqual(at(160))
    }
  })

  it('rotations racing revocations: at most one rotation wins and a revocation always ends the overlap', async () => {
    for (let round = 0; round < 8; round++) {
      const current = sampleApiKeyRecord()
      await on(round).create(current)
      const replacements = Array.from({ length: 8 }, () => sampleApiKeyRecord())
      const rotations = replacements.map((replacement, index) =>
        on(index).rotate({ currentKeyId: current.keyId, replacement, overlapUntil: at(600), now: at(100) }),
      )
      const revocations = Array.from({ length: 4 }, (_, index) =>
        on(index + round).revoke(current.keyId, at(200)),
      )
      const [rotated, revoked] = await Promise.all([
        Promise.allSettled(rotations),
        Promise.allSettled(revocations),
      ])
      expect(revoked.every((result) => result.status === 'fulfilled')).toBe(true)
      const won = rotated.filter((result) => result.status === 'fulfilled').length
      expect(won).toBeLessThanOrEqual(1)
      for (const result of rotated) {
        if (result.status === 'rejected') expect(codeOf(result.reason)).toBe('api_key.not_active')
      }
      const inserted = await Promise.all(replacements.map((replacement) => on(0).get(replacement.keyId)))
      expect(inserted.filter(Boolean)).toHaveLength(won)
      const final = await on(1).get(current.keyId)
      // A winning rotation came before every revocation (after one it would have lost): the earlier
      // revocation time stays and the revocations that followed ended its overlap.
      expect(final?.revokedAt).toEqual(won === 1 ? at(100) : at(200))
      expect(final?.overlapUntil).toBeUndefined()
    }
  })

  it('usage batches with overlapping keys flushed at once from both instances neither fail nor go back', async () => {
    // A table of realistic size, so the planner fetches a batch's rows by index in the batch's order: an
    // UPDATE that locked rows in that order deadlocks here against a batch listing them the other way.
    await db.client.pool.query(`
      insert into portcullis_api_keys (key_id, owner_id, owner_kind, digest, pepper_version, restrictions, created_at)
      select 'filler-' || n, 'owner', 'service', decode(repeat('00', 32), 'hex'), 'p1', '{}', now()
      from generate_series(1, 20000) n`)
    await db.client.pool.query('analyze portcullis_api_keys')
    const records = Array.from({ length: 40 }, () => sampleApiKeyRecord())
    for (const record of records) await on(0).create(record)
    const forward = records.map((record, index) => ({ keyId: record.keyId, usedAt: at(index) }))
    const backward = [...forward]
      .reverse()
      .map((use) => ({ ...use, usedAt: new Date(use.usedAt.getTime() + 1) }))
    for (let round = 0; round < 10; round++) {
      const shift = (uses: typeof forward) =>
        uses.map((use) => ({ ...use, usedAt: new Date(use.usedAt.getTime() + round * 1000) }))
      const flushes = [shift(forward), shift(backward), shift(backward), shift(forward)].map((batch, index) =>
        on(index).recordUsage(batch),
      )
      const results = await Promise.allSettled(flushes)
      expect(results.filter((result) => result.status === 'rejected')).toEqual([])
    }
    const last = await Promise.all(records.map((record) => on(1).get(record.keyId)))
    expect(last.map((record) => record?.lastUsedAt?.getTime())).toEqual(
      records.map((_, index) => at(index).getTime() + 9000 + 1),
    )
  })
})
