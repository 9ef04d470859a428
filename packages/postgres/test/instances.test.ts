import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { StepUpService } from '@portcullis/core/step-up'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresApiKeyStore, PostgresSessionStore, PostgresStepUpStore } from '../src/index.js'
import { apiKeyInstance } from './support/api-keys.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

/**
 * Two app instances (two pools on one database) racing on one record: exactly one wins. Refreshes,
 * rotations, transaction consumes and rate limits have their own instance tests beside their stores.
 */
describe('two app instances on one database', () => {
  it('of 32 concurrent redemptions of one credential on two instances exactly one succeeds', async () => {
    const instances = [db.connect(4), db.connect(4)].map(
      (client) => new StepUpService({ store: new PostgresStepUpStore({ client }) }),
    )
    for (let round = 0; round < 5; round += 1) {
      const bound = {
        accountId: `account-${randomUUID()}`,
        purpose: 'payments.approve',
        securityEpoch: 7,
        sessionBinding: `session-${randomUUID()}`,
      }
      const token = (await instances[0]?.issue(bound))?.reveal() ?? ''
      const results = await Promise.all(
        Array.from({ length: 32 }, (_, index) => instances[index % 2]?.consume({ ...bound, token })),
      )
      expect(results.filter((result) => result?.kind === 'consumed')).toHaveLength(1)
      expect(results.every((result) => result?.kind === 'rejected' || result?.kind === 'consumed')).toBe(true)
    }
  })

  it('of 16 concurrent revocations of one session on two instances exactly one revokes it', async () => {
    const stores = [db.connect(4), db.connect(4)].map((client) => new PostgresSessionStore({ client }))
    const T0 = new Date()
    for (let round = 0; round < 5; round += 1) {
      const session = {
        digest: createHash('sha256').update(randomBytes(32)).digest('hex'),
        handle: randomBytes(16).toString('base64url'),
        accountId: `account-${randomUUID()}`,
        securityEpoch: 1,
        createdAt: T0,
        lastSeenAt: T0,
        idleExpiresAt: new Date(T0.getTime() + 1_800_000),
        absoluteExpiresAt: new Date(T0.getTime() + 28_800_000),
      }
      await stores[0]?.create({ session })
      const counts = await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          index % 3 === 0
            ? stores[index % 2]?.revoke({ digest: session.digest })
            : stores[index % 2]?.revoke({ accountId: session.accountId, handle: session.handle }),
        ),
      )
      expect(counts.reduce((sum: number, count) => sum + (count ?? 0), 0)).toBe(1)
      expect(await stores[1]?.get(session.digest, T0)).toBeNull()
    }
  })

  it('concurrent revocations of one API key on two instances keep the earliest time and end the overlap', async () => {
    const [first, second] = [db.connect(4), db.connect(4)].map((client) =>
      apiKeyInstance(client, () => Date.now()),
    )
    const issued = await first?.service.issue({ ownerId: `svc-${randomUUID()}` })
    const keyId = issued?.keyId ?? ''
    const times = Array.from({ length: 16 }, (_, index) => new Date(Date.now() + index * 1_000))
    await Promise.all(
      times.map((time, index) => (index % 2 === 0 ? first : second)?.store.revoke(keyId, time)),
    )
    const record = await new PostgresApiKeyStore({ client: db.client }).get(keyId)
    expect(record?.revokedAt).toEqual(times[0])
    expect(record?.overlapUntil).toBeUndefined()
    expect((await second?.service.verify(issued?.value ?? ''))?.kind).toBe('invalid')
  })
})
