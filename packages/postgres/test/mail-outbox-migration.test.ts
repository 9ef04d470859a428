// Migration 14 (mail outbox and notification settings) on a database at version 13 holding accounts,
// passwords, email addresses, sessions and one-time codes: every row of every table is the same
// afterwards, the new tables are empty, account changes write their messages, settings go with a deleted
// account, and the maintenance sweep takes failed mail past its retention in bounded batches.
import { randomUUID } from 'node:crypto'
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import { newOpaqueToken } from '@portcullis/core/local-accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  MIGRATIONS,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresMailOutbox,
  PostgresNotificationSettings,
  PostgresOneTimeCodeStore,
  sweepExpired,
} from '../src/index.js'
import {
  everyRow,
  insertLiveOldSession,
  migrateThrough,
  migrationDatabase,
} from './support/migration-database.js'

const VERSION = MIGRATIONS.find((migration) => migration.name === 'mail-outbox')?.version ?? -1
const NOW = new Date('2026-12-01T12:00:00.000Z')
const client: PostgresClient = await migrationDatabase()

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(9) })
const entry = (accountId: string | null, createdAt = NOW) => ({
  id: randomUUID(),
  kind: 'security-notification' as const,
  accountId,
  envelope: `pe1.k1.${Buffer.from(randomUUID()).toString('base64url')}`,
  createdAt,
})
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}
let applied: readonly number[] = []

describe(`migration ${VERSION} (mail outbox) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBe(14)
    await migrateThrough(client, VERSION - 1)
    const accounts = new PostgresAccountStore({ client })
    for (const name of ['alice', 'bob']) {
      const created = await accounts.createAccount({
        accountId: name,
        username: `${name}@users.example`,
        passwordHash: HASH(name),
        now: NOW,
      })
      expect(created.outcome).toBe('created')
      expect(
        (await accounts.addEmailAddress({ accountId: name, address: `${name}@mail.example`, now: NOW }))
          .outcome,
      ).toBe('added')
    }
    await insertLiveOldSession(client, { token: newOpaqueToken(32), accountId: 'alice', now: NOW })
    const id = generateFlowId()
    await new PostgresOneTimeCodeStore({ client }).issue({
      code: {
        id,
        purpose: 'password-reset',
        accountId: 'alice',
        address: 'alice@mail.example',
        ...ring.issueDigest({ id, purpose: 'password-reset', code: '123456' }),
        maxAttempts: 5,
        createdAt: NOW,
        expiresAt: new Date(NOW.getTime() + 3_600_000),
        payload: null,
      },
    })
    before = await everyRow(client)
    applied = (await migrate(client)).applied
    after = await everyRow(client)
  })

  it('applies version 14 (and any later) and keeps every row of every table', () => {
    expect(applied[0]).toBe(VERSION)
    expect(before.portcullis_accounts).toHaveLength(2)
    expect(before.portcullis_one_time_codes).toHaveLength(1)
    expect(after.portcullis_mail_outbox).toEqual([])
    expect(after.portcullis_notification_settings).toEqual([])
    const existing = Object.fromEntries(Object.keys(before).map((name) => [name, after[name]]))
    expect(existing).toEqual(before)
  })

  it('account changes write their messages; settings work and go with a deleted account', async () => {
    const accounts = new PostgresAccountStore({ client })
    const message = entry('alice')
    expect(await accounts.bumpSecurityEpoch({ accountId: 'alice', now: NOW, outbox: [message] })).toBe(2)
    const claimed = await new PostgresMailOutbox({ client }).claim({ now: NOW, limit: 10, leaseSeconds: 30 })
    expect(claimed.map((row) => row.id)).toEqual([message.id])
    const settings = new PostgresNotificationSettings({ client })
    expect(await settings.setOptOuts({ accountId: 'bob', optOuts: ['password-changed'], now: NOW })).toBe(
      true,
    )
    expect(await settings.getOptOuts('bob')).toEqual(['password-changed'])
    expect((await accounts.deleteAccount({ accountId: 'bob', now: NOW })).outcome).toBe('deleted')
    expect(await settings.getOptOuts('bob')).toEqual([])
    expect(await settings.setOptOuts({ accountId: 'bob', optOuts: [], now: NOW })).toBe(false)
  })

  it('the maintenance sweep takes failed mail 30 days after it failed, in bounded batches, and never pending mail', async () => {
    const outbox = new PostgresMailOutbox({ client })
    await client.pool.query('delete from portcullis_mail_outbox')
    const failed = Array.from({ length: 5 }, () => entry(null))
    const pending = entry(null)
    await outbox.enqueue([...failed, pending])
    for (const row of failed) await outbox.fail({ id: row.id, error: 'mail.rejected', now: NOW })
    const day = 86_400_000
    const early = await sweepExpired(client, { now: new Date(NOW.getTime() + 30 * day - 1) })
    expect(early.deleted.portcullis_mail_outbox).toBe(0)
    const thirtyDays = new Date(NOW.getTime() + 30 * day)
    const report = await sweepExpired(client, { now: thirtyDays, batchSize: 2, maxBatches: 2 })
    expect(report.deleted.portcullis_mail_outbox).toBe(4)
    expect(report.more).toBe(true)
    const rest = await sweepExpired(client, {
      now: new Date(NOW.getTime() + 400 * day),
      batchSize: 2,
      maxBatches: 2,
    })
    expect(rest.deleted.portcullis_mail_outbox).toBe(1)
    const left = await client.pool.query<{ id: string; state: string }>(
      'select id::text as id, state from portcullis_mail_outbox',
    )
    expect(left.rows).toEqual([{ id: pending.id, state: 'pending' }])
    const failedRows = await outbox.listFailed()
    expect(failedRows).toEqual([])
  })
})
