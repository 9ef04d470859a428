// Migration 13 (one-time codes) on a database at version 12 holding accounts, passwords, email
// addresses and sessions: every row of every table is the same afterwards, the new table is empty, and
// the accounts can take codes that go with them when they are deleted.
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import { digestOpaqueToken, newOpaqueToken } from '@portcullis/core/local-accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  MIGRATIONS,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresOneTimeCodeStore,
  PostgresSessionStore,
  sweepExpired,
} from '../src/index.js'
import {
  everyRow,
  insertLiveOldSession,
  migrateThrough,
  migrationDatabase,
} from './support/migration-database.js'

const VERSION = MIGRATIONS.find((migration) => migration.name === 'one-time-codes')?.version ?? -1
const NOW = new Date('2026-12-01T12:00:00.000Z')
const client: PostgresClient = await migrationDatabase()

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(9) })
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}
let applied: readonly number[] = []
const session = newOpaqueToken(32)

describe(`migration ${VERSION} (one-time codes) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBe(13)
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
      const address = `${name}@mail.example`
      expect((await accounts.addEmailAddress({ accountId: name, address, now: NOW })).outcome).toBe('added')
    }
    expect(
      (await accounts.verifyEmailAddress({ accountId: 'alice', address: 'alice@mail.example', now: NOW }))
        .outcome,
    ).toBe('verified')
    await insertLiveOldSession(client, { token: session, accountId: 'alice', now: NOW })
    before = await everyRow(client)
    const report = await migrate(client)
    applied = report.applied
    after = await everyRow(client)
  })

  it('applies version 13 (and any later) and keeps every row of every table', () => {
    expect(applied[0]).toBe(VERSION)
    expect(before.portcullis_accounts).toHaveLength(2)
    expect(before.portcullis_email_addresses).toHaveLength(2)
    expect(before.portcullis_sessions).toHaveLength(1)
    expect(after.portcullis_one_time_codes).toEqual([])
    const existing = Object.fromEntries(Object.keys(before).map((name) => [name, after[name]]))
    expect(existing).toEqual(before)
  })

  it('the accounts work as before, take codes, and lose them when deleted', async () => {
    const accounts = new PostgresAccountStore({ client })
    expect(await accounts.findPassword({ username: 'bob@users.example' })).toMatchObject({ accountId: 'bob' })
    const stored = await new PostgresSessionStore({ client }).get(digestOpaqueToken(session), new Date())
    expect(stored?.accountId).toBe('alice')
    const codes = new PostgresOneTimeCodeStore({ client })
    const code = (accountId: string) => {
      const id = generateFlowId()
      return {
        id,
        purpose: 'password-reset' as const,
        accountId,
        address: `${accountId}@mail.example`,
        ...ring.issueDigest({ id, purpose: 'password-reset', code: '123456' }),
        maxAttempts: 5,
        createdAt: NOW,
        expiresAt: new Date(NOW.getTime() + 3_600_000),
        payload: null,
      }
    }
    const [forAlice, forBob] = [code('alice'), code('bob')]
    await codes.issue({ code: forAlice })
    await codes.issue({ code: forBob })
    expect((await accounts.deleteAccount({ accountId: 'bob', now: NOW })).outcome).toBe('deleted')
    const present = (issued: typeof forAlice) => ({
      id: issued.id,
      purpose: issued.purpose,
      candidates: ring.candidates({ id: issued.id, purpose: issued.purpose, code: '123456' }),
      now: NOW,
    })
    expect((await codes.consume(present(forBob))).outcome).toBe('not-found')
    expect((await codes.consume(present(forAlice))).outcome).toBe('consumed')
  })

  it('the maintenance sweep takes expired codes in bounded batches', async () => {
    const codes = new PostgresOneTimeCodeStore({ client })
    for (let index = 0; index < 5; index += 1) {
      const id = generateFlowId()
      await codes.issue({
        supersede: false,
        code: {
          id,
          purpose: 'sign-in',
          accountId: null,
          address: 'nobody@mail.example',
          ...ring.issueDigest({ id, purpose: 'sign-in', code: '654321' }),
          maxAttempts: 5,
          createdAt: NOW,
          expiresAt: new Date(NOW.getTime() + 600_000),
          payload: null,
        },
      })
    }
    const later = new Date(NOW.getTime() + 600_000)
    const report = await sweepExpired(client, { now: later, batchSize: 2, maxBatches: 2 })
    expect(report.deleted.portcullis_one_time_codes).toBe(4)
    expect(report.more).toBe(true)
    const rest = await sweepExpired(client, { now: later, batchSize: 2, maxBatches: 2 })
    expect(rest.deleted.portcullis_one_time_codes).toBe(1)
  })
})
