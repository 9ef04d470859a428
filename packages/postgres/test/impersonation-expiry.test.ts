import { randomBytes } from 'node:crypto'
import { recordExpiredImpersonations } from '@portcullis/core/impersonation'
import { SecurityLogEntries } from '@portcullis/core/security-log'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresSecurityLog, sweepExpired } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

/**
 * An impersonation that runs out at its bound gets one `impersonation.ended` entry (reason `expired`),
 * whichever instance's sweep notices first: two instances (their own pools) sweeping at once write one.
 */
const db = await migratedDatabase()
const other = db.connect(4)
afterAll(() => db.close())

const entries = new SecurityLogEntries()
const id = () => randomBytes(16).toString('base64url').slice(0, 22)

function started(now: number, ageSeconds: number, ttlSeconds: number, administrator: string) {
  const impersonationId = id()
  return entries.entryOf({
    type: 'impersonation.started',
    at: new Date(now - ageSeconds * 1000),
    accountId: `user-${impersonationId}`,
    actorId: administrator,
    impersonationId,
    reason: 'ticket 99',
    sessionHandle: `impersonate${'a'.repeat(11)}${impersonationId}`,
    expiresInSeconds: ttlSeconds,
  })
}

describe('impersonations past their bound (two Postgres instances)', () => {
  it('each gets one expired end entry at its bound, however many instances sweep at once', async () => {
    const a = new PostgresSecurityLog({ client: db.client })
    const b = new PostgresSecurityLog({ client: other })
    // Far in the future, so no other test's entries share the window.
    const now = Date.UTC(2090, 0, 1) + Math.floor(Math.random() * 1e9)
    const admin = `admin-${id()}`
    const signedOutAdmin = `admin-${id()}`
    const expired = started(now, 120, 60, admin)
    const alsoExpired = started(now, 3000, 1800, admin)
    const live = started(now, 30, 60, admin)
    const endedByHand = started(now, 300, 60, admin)
    const endedBySignOut = started(now, 300, 60, signedOutAdmin)
    await a.append([expired, alsoExpired, live, endedByHand, endedBySignOut])
    await a.append([
      entries.entryOf({
        type: 'impersonation.ended',
        at: new Date(now - 280_000),
        actorId: admin,
        reason: 'ended_by_administrator',
        accountId: endedByHand.accountId as string,
        impersonationId: endedByHand.details.impersonationId as string,
      }),
      entries.entryOf({
        type: 'impersonation.ended',
        at: new Date(now - 250_000),
        actorId: signedOutAdmin,
        reason: 'administrator_signed_out',
        sessions: 1,
      }),
    ])

    const counts = await Promise.all([
      recordExpiredImpersonations(a, { now: new Date(now) }),
      recordExpiredImpersonations(b, { now: new Date(now) }),
      recordExpiredImpersonations(b, { now: new Date(now) }),
    ])
    expect(counts.every((count) => count <= 2)).toBe(true)
    // Once recorded, a later sweep finds nothing left to end.
    expect(await recordExpiredImpersonations(a, { now: new Date(now + 1000) })).toBe(0)

    const page = await b.listByType({
      type: 'impersonation.ended',
      since: new Date(now - 4_000_000),
      until: new Date(now + 1),
      limit: 50,
    })
    const expiredEnds = page.entries.filter((entry) => entry.reason === 'expired')
    expect(expiredEnds.map((entry) => entry.details.impersonationId).sort()).toEqual(
      [expired.details.impersonationId, alsoExpired.details.impersonationId].sort(),
    )
    const first = expiredEnds.find(
      (entry) => entry.details.impersonationId === expired.details.impersonationId,
    )
    expect(first?.at.getTime()).toBe(expired.at.getTime() + 60_000)
    expect(first?.accountId).toBe(expired.accountId)
    expect(first?.actorId).toBe(admin)
    expect(first?.sessionHandle).toBe(expired.sessionHandle)
  })

  it('the maintenance sweep records them (its report counts them), on both instances at once', async () => {
    const now = Date.UTC(2091, 0, 1) + Math.floor(Math.random() * 1e9)
    const entry = started(now, 7200, 3600, `admin-${id()}`)
    await new PostgresSecurityLog({ client: db.client }).append([entry])
    const reports = await Promise.all([
      sweepExpired(db.client, { now: new Date(now) }),
      sweepExpired(other, { now: new Date(now) }),
    ])
    expect(reports.some((report) => report.impersonationsEnded >= 1)).toBe(true)
    const ends = await new PostgresSecurityLog({ client: other }).listForAccount({
      accountId: entry.accountId as string,
      limit: 10,
    })
    expect(ends.entries.map((each) => [each.type, each.reason])).toEqual([
      ['impersonation.ended', 'expired'],
      ['impersonation.started', null],
    ])
  })
})
