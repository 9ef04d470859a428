// The security log as docs/security-log.md shows it: the writer as the event sink of local accounts, the
// log on Postgres (DATABASE_URL names a disposable database), the reads, a write in the same transaction
// as its change, the writer's stats, and retention by the maintenance sweep.
import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
} from '@portcullis/core/local-accounts'
import {
  type SecurityLogEntry,
  SecurityLogWriter,
  type SecurityLogWriterReport,
} from '@portcullis/core/security-log'
import { describeUserAgent } from '@portcullis/http/user-agents'
import { PostgresAccountStore, PostgresSecurityLog, sweepExpired } from '@portcullis/postgres'
import { expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'

const client = await exampleDatabase()

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher
const reports: SecurityLogWriterReport[] = []

// #region writer
const securityLog = new PostgresSecurityLog({ client })
const writer = new SecurityLogWriter({
  log: securityLog,
  // Keep a keyed hash of client addresses, not the addresses (the key comes from the secret store).
  clientAddresses: {
    hashKey: Buffer.from(process.env.ADDRESS_HASH_KEY ?? randomBytes(32).toString('hex'), 'hex'),
  },
  describeUserAgent,
  onReport: (report) => reports.push(report), // count it, alert on `dropped` and `write_failed`
})

const local = new LocalAccounts({
  profile: 'session',
  accounts: new MemoryAccountStore(),
  sessions: new MemorySessionStore(),
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: 'https://app.example',
  registration: 'open',
  events: writer.sink,
})
// #endregion writer

it('records sign-ins with their device and lists them newest first', async () => {
  const chrome =
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
  const { accountId } = await local.register({ username: 'ada', password: 'correct horse battery' })
  await expect(local.login({ username: 'ada', password: 'wrong' })).rejects.toThrow()
  // The log orders by time: the failure's millisecond is over before the next sign-in starts.
  await new Promise((resolve) => setTimeout(resolve, 10))
  await local.login(
    { username: 'ada', password: 'correct horse battery' },
    { request: { peerAddress: '203.0.113.7', userAgent: chrome } },
  )
  await writer.flush()

  // #region reads
  // A person's recent activity: newest first, 20 a page.
  const first = await securityLog.listForAccount({ accountId, limit: 20 })
  const next =
    first.nextCursor === null
      ? undefined
      : await securityLog.listForAccount({ accountId, limit: 20, cursor: first.nextCursor })

  // Operators: every failed sign-in of the last hour.
  const failures = await securityLog.listByType({
    type: 'login.failed',
    since: new Date(Date.now() - 3_600_000),
    until: new Date(),
    limit: 100,
  })
  // #endregion reads
  expect(next).toBeUndefined()
  expect(first.entries.map((entry) => entry.type)).toEqual([
    'session.created',
    'login.succeeded',
    'login.failed',
  ])
  const created = first.entries[0] as SecurityLogEntry
  expect(created.device).toEqual({ browser: 'Chrome 131', os: 'Windows 10', platform: 'desktop' })
  expect(created.clientAddress).toBeNull()
  expect(created.clientAddressHash).toBe(writer.hashAddress('203.0.113.7'))
  expect(failures.entries.map((entry) => [entry.accountId, entry.reason])).toEqual([
    [accountId, 'bad_password'],
  ])
  expect(reports).toEqual([])
})

it('writes an entry in the same transaction as the change it records', async () => {
  await client.pool.query(
    'create table if not exists app_accounts (id text primary key, disabled boolean not null)',
  )
  await client.pool.query("insert into app_accounts values ('acct-42', false) on conflict do nothing")
  // #region transaction
  await client.db.transaction(async (tx) => {
    await tx.execute("update app_accounts set disabled = true where id = 'acct-42'")
    await securityLog.appendIn(tx, [
      writer.entryFor({
        type: 'account.status_changed',
        at: new Date(),
        accountId: 'acct-42',
        status: 'disabled',
      }),
    ])
  })
  // #endregion transaction
  const page = await securityLog.listForAccount({ accountId: 'acct-42', limit: 5 })
  expect(page.entries.map((entry) => entry.details.status)).toEqual(['disabled'])
})

it("writes an entry with a store's change: both commit or neither", async () => {
  const accounts = new PostgresAccountStore({ client })
  const accountId = `acct-${randomBytes(6).toString('hex')}`
  await accounts.createAccount({ accountId, username: accountId, passwordHash: '$plain$x', now: new Date() })
  // #region store-change
  // A store that says `securityLogInTransaction` takes the entries with its change (`WithSecurityLog`).
  const disabled = await accounts.setAccountStatus({
    accountId,
    status: 'disabled',
    now: new Date(),
    securityLog: [
      writer.entryFor({ type: 'account.status_changed', at: new Date(), accountId, status: 'disabled' }),
    ],
  })
  // null (an unknown account): nothing changed, and no entry was written
  // #endregion store-change
  expect(disabled?.status).toBe('disabled')
  const page = await securityLog.listForAccount({ accountId, limit: 5 })
  expect(page.entries.map((entry) => entry.type)).toEqual(['account.status_changed'])
  const unknown = `acct-${randomBytes(6).toString('hex')}`
  const none = await accounts.setAccountStatus({
    accountId: unknown,
    status: 'disabled',
    now: new Date(),
    securityLog: [writer.entryFor({ type: 'account.status_changed', at: new Date(), accountId: unknown })],
  })
  expect(none).toBeNull()
  expect((await securityLog.listForAccount({ accountId: unknown, limit: 5 })).entries).toEqual([])
})

it('reports what it could not keep and sweeps entries past retention', async () => {
  const burst = new SecurityLogWriter({ log: securityLog, maxQueue: 10, flushDelayMs: 1_000 })
  for (let n = 0; n < 15; n += 1)
    burst.record({ type: 'login.failed', at: new Date(), reason: 'unknown_account' })
  // #region stats
  const { queued, dropped, written, failedWrites } = burst.stats()
  // queued: 10, dropped: 5 (each also reported to onReport); once written, a `security_log.dropped`
  // entry in the log says how many were lost and since when.
  // #endregion stats
  expect([queued, dropped, written, failedWrites]).toEqual([10, 5, 0, 0])
  await burst.close()
  const markers = await securityLog.listByType({
    type: 'security_log.dropped',
    since: new Date(0),
    until: new Date(Date.now() + 60_000),
    limit: 5,
  })
  expect(markers.entries.map((entry) => entry.details.dropped)).toEqual([5])

  await securityLog.append([
    writer.entryFor({
      type: 'login.failed',
      at: new Date(Date.now() - 200 * 86_400_000),
      reason: 'bad_password',
    }),
  ])
  // #region retention
  // The maintenance sweep (the CLI's `portcullis-postgres sweep` runs it) keeps 180 days by default.
  const report = await sweepExpired(client, { securityLogRetentionDays: 180 })
  // report.deleted.portcullis_security_log: entries older than 180 days, deleted in bounded batches
  // #endregion retention
  expect(report.deleted.portcullis_security_log).toBe(1)
})
