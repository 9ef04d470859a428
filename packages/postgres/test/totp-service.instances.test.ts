import { randomBytes } from 'node:crypto'
import { TotpService, totpCodeAt } from '@portcullis/totp'
import { Secret } from 'otpauth'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresRateLimitStore, PostgresTotpStore } from '../src/index.js'
import { migratedDatabase, realProtector } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const protector = realProtector()
const peppers = { active: { version: 'p1', secret: randomBytes(32) } }
const T0 = 1_900_000_020_000

/** Two app instances: each its own pool, service and clock, over one database. */
function instances(now: { value: number }) {
  return [db.client, db.connect()].map(
    (client) =>
      new TotpService({
        store: new PostgresTotpStore({ client }),
        protector,
        rateLimits: new PostgresRateLimitStore({ client }),
        recoveryCodePeppers: peppers,
        issuer: 'Portcullis',
        attempts: { limit: 50, windowSeconds: 300 },
        clock: () => now.value,
      }),
  ) as [TotpService, TotpService]
}

describe('TOTP on two instances over one Postgres database', () => {
  it('a code used on one instance is refused on the other', async () => {
    const now = { value: T0 }
    const [one, two] = instances(now)
    const start = await one.beginEnrollment({ accountId: 'replay', label: 'replay' })
    const secret = Secret.fromBase32(start.revealSecret()).bytes
    await two.confirmEnrollment({ accountId: 'replay', code: totpCodeAt(secret, now.value) })
    now.value += 60_000
    const code = totpCodeAt(secret, now.value)
    await one.verify({ accountId: 'replay', code })
    await expect(two.verify({ accountId: 'replay', code })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
  })

  it('of 20 concurrent redemptions of one recovery code across both instances exactly one wins', async () => {
    const now = { value: T0 }
    const [one, two] = instances(now)
    const start = await one.beginEnrollment({ accountId: 'recovery', label: 'recovery' })
    const secret = Secret.fromBase32(start.revealSecret()).bytes
    const codes = await one.confirmEnrollment({ accountId: 'recovery', code: totpCodeAt(secret, now.value) })
    const code = codes.reveal()[0]
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? one : two).redeemRecoveryCode({ accountId: 'recovery', code }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected')
    for (const outcome of refused)
      expect(outcome.reason).toMatchObject({ code: 'totp.invalid_recovery_code' })
    expect((await two.status('recovery')).recoveryCodes).toBe(9)
  })

  it('stores the secret sealed: the row holds an envelope, never the base32 secret', async () => {
    const now = { value: T0 }
    const [one] = instances(now)
    const start = await one.beginEnrollment({ accountId: 'at-rest', label: 'at-rest' })
    const { rows } = await db.client.pool.query<{ sealed_secret: string }>(
      "select sealed_secret from portcullis_totp_enrollments where account_id = 'at-rest'",
    )
    expect(rows[0]?.sealed_secret).toMatch(/^pe1\.test-1\./)
    expect(rows[0]?.sealed_secret).not.toContain(start.revealSecret())
  })
})
