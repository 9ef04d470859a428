import { randomBytes } from 'node:crypto'
import {
  LocalAccounts,
  PASSWORD_ACCEPTED,
  type PasswordHasher,
  type SessionSignIn,
} from '@portcullis/core/local-accounts'
import { SecurityLogWriter, type SecurityLogWriterReport } from '@portcullis/core/security-log'
import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inTransaction } from '../src/client/transaction.js'
import {
  createPostgresClient,
  PostgresAccountStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '../src/index.js'
import { PostgresSecurityLog } from '../src/security-log/store.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
const clients: PostgresClient[] = []
let proxy: FaultProxy
beforeAll(async () => {
  const target = new URL(db.database.connectionString)
  proxy = await startFaultProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) })
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await proxy?.close()
  await db.close()
})

const hasher: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}

async function rows(sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  return (await db.client.pool.query(sql, values)).rows
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt += 1) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`${what} did not happen within 5 s`)
}

describe('the security log on Postgres, written by SecurityLogWriter', () => {
  it('records a sign-in story, and no column of any row holds a password, session id, cookie, CSRF token, address or raw User-Agent', async () => {
    const log = new PostgresSecurityLog({ client: db.client })
    const writer = new SecurityLogWriter({
      log,
      clientAddresses: { hashKey: randomBytes(32) },
      describeUserAgent: (agent) => ({
        browser: agent.includes('Firefox/') ? 'Firefox' : null,
        os: 'Linux',
        platform: 'desktop',
      }),
    })
    const local = new LocalAccounts({
      profile: 'session',
      accounts: new PostgresAccountStore({ client: db.client }),
      sessions: new PostgresSessionStore({ client: db.client }),
      rateLimits: new PostgresRateLimitStore({ client: db.client }),
      hasher,
      publicOrigin: 'https://app.example',
      passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
      registration: 'open',
      events: writer.sink,
    })
    const first = `first-${randomBytes(9).toString('base64url')}`
    const second = `second-${randomBytes(9).toString('base64url')}`
    const address = '198.51.100.77'
    const agent = `Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 marker-${randomBytes(4).toString('hex')}`
    const request = { peerAddress: address, userAgent: agent }
    const username = `alice-${randomBytes(4).toString('hex')}`
    const { accountId } = await local.register({ username, password: first }, request)
    await expect(local.login({ username, password: 'wrong-password-typed' }, { request })).rejects.toThrow()
    const signIn = (await local.login({ username, password: first }, { request })) as SessionSignIn
    const changed = await local.changePassword({
      accountId,
      body: { currentPassword: first, newPassword: second },
      credentials: { sessionHandle: signIn.handle },
      request,
    })
    const renewed = changed.session as SessionSignIn
    await local.logout({
      accountId,
      sessionId: renewed.sessionId,
      credentials: { sessionHandle: renewed.handle },
      request,
    })
    expect(await writer.flush()).toBe(true)

    const page = await log.listForAccount({ accountId, limit: 50 })
    const types = page.entries.map((entry) => entry.type)
    expect(types).toEqual(
      expect.arrayContaining([
        'login.failed',
        'login.succeeded',
        'session.created',
        'password.changed',
        'epoch.bumped',
        'session.revoked',
      ]),
    )
    const created = page.entries.find(
      (entry) => entry.type === 'session.created' && entry.sessionHandle === signIn.handle,
    )
    expect(created?.device).toEqual({ browser: 'Firefox', os: 'Linux', platform: 'desktop' })
    expect(created?.clientAddressHash).toBe(writer.hashAddress(address))
    expect(page.entries.find((entry) => entry.type === 'login.failed')?.reason).toBe('bad_password')

    const secrets = [
      first,
      second,
      'wrong-password-typed',
      signIn.sessionId,
      renewed.sessionId,
      signIn.setCookie.split(';')[0] as string,
      signIn.csrfToken,
      renewed.csrfToken,
      address,
      agent,
      agent.slice(-12),
    ]
    const stored = await rows('select * from portcullis_security_log')
    expect(stored.length).toBeGreaterThanOrEqual(6)
    for (const row of stored) {
      for (const [column, value] of Object.entries(row)) {
        const text = value instanceof Date ? value.toISOString() : JSON.stringify(value)
        for (const secret of secrets) expect(text, `${column} of a ${row.type} row`).not.toContain(secret)
      }
    }
    await writer.close()
  })

  it('loses nothing and stores nothing twice when the connection dies while a batch INSERT is in flight on the server', async () => {
    const client = createPostgresClient({
      connectionString: proxy.through(db.database.connectionString),
      maxConnections: 2,
      connectionTimeoutMs: 1_000,
      applicationName: 'security-log-faulty',
    })
    clients.push(client)
    const reports: SecurityLogWriterReport[] = []
    const writer = new SecurityLogWriter({
      log: new PostgresSecurityLog({ client }),
      batchSize: 100,
      flushDelayMs: 0,
      retryDelayMs: 20,
      onReport: (report) => reports.push(report),
    })
    const accountId = `acct-${randomBytes(6).toString('hex')}`
    // Another session holds the table so the first batch's INSERT waits on the server, mid-flight.
    const blocker = new pg.Client({ connectionString: db.database.connectionString })
    await blocker.connect()
    try {
      await blocker.query('begin')
      await blocker.query('lock table portcullis_security_log in share mode')
      for (let n = 0; n < 250; n += 1) {
        writer.record({
          type: 'login.failed',
          at: new Date(Date.UTC(2026, 5, 1) + n),
          accountId,
          reason: 'bad_password',
        })
      }
      await until(async () => {
        const waiting = await rows(
          "select 1 from pg_stat_activity where application_name = 'security-log-faulty' and wait_event_type = 'Lock'",
        )
        return waiting.length > 0
      }, 'the batch waiting on the lock')
      proxy.cut()
      await blocker.query('commit')
    } finally {
      await blocker.end()
    }
    // The server finishes the INSERT it was waiting on; the writer never heard, and retries it.
    expect(await writer.flush(15_000)).toBe(true)
    const stored = await rows('select id from portcullis_security_log where account_id = $1', [accountId])
    expect(stored.length).toBe(250)
    expect(new Set(stored.map((row) => row.id)).size).toBe(250)
    expect(writer.stats()).toMatchObject({ written: 250, queued: 0, dropped: 0 })
    expect(
      reports.some((report) => report.kind === 'write_failed' && report.code === 'postgres.unavailable'),
    ).toBe(true)
    expect(reports.at(-1)).toMatchObject({ kind: 'recovered' })
  })

  it('reports and keeps retrying while the database is down, then writes everything', async () => {
    const client = createPostgresClient({
      connectionString: proxy.through(db.database.connectionString),
      maxConnections: 2,
      connectionTimeoutMs: 500,
    })
    clients.push(client)
    const reports: SecurityLogWriterReport[] = []
    const writer = new SecurityLogWriter({
      log: new PostgresSecurityLog({ client }),
      retryDelayMs: 10,
      maxRetryDelayMs: 50,
      flushDelayMs: 0,
      onReport: (report) => reports.push(report),
    })
    const accountId = `acct-${randomBytes(6).toString('hex')}`
    await proxy.down()
    try {
      for (let n = 0; n < 40; n += 1)
        writer.record({ type: 'login.succeeded', at: new Date(Date.UTC(2026, 6, 1) + n), accountId })
      await until(() => writer.stats().failedWrites >= 2, 'two failed writes')
      expect(writer.stats()).toMatchObject({ written: 0, queued: 40, lastErrorCode: 'postgres.unavailable' })
    } finally {
      await proxy.up()
    }
    expect(await writer.flush(15_000)).toBe(true)
    expect(
      (await rows('select 1 from portcullis_security_log where account_id = $1', [accountId])).length,
    ).toBe(40)
    expect(reports.filter((report) => report.kind === 'write_failed').length).toBeGreaterThanOrEqual(2)
  })

  it('writes an entry in the same transaction as the change it records: rolled back together, committed together', async () => {
    const log = new PostgresSecurityLog({ client: db.client })
    const writer = new SecurityLogWriter({ log })
    const accountId = `acct-${randomBytes(6).toString('hex')}`
    await db.client.pool.query(
      'create table if not exists app_flags (account_id text primary key, disabled boolean)',
    )
    const change = (commit: boolean) =>
      inTransaction(db.client.pool, async (tx) => {
        await tx.execute(
          `insert into app_flags values ('${accountId}', true) on conflict (account_id) do update set disabled = true`,
        )
        await log.appendIn(tx, [
          writer.entryFor({ type: 'account.status_changed', at: new Date(), accountId, status: 'disabled' }),
        ])
        if (!commit) throw new Error('the change failed after the entry was written')
      })
    await expect(change(false)).rejects.toThrow()
    expect((await log.listForAccount({ accountId, limit: 5 })).entries).toEqual([])
    expect(await rows('select 1 from app_flags where account_id = $1', [accountId])).toEqual([])
    await change(true)
    const page = await log.listForAccount({ accountId, limit: 5 })
    expect(page.entries.map((entry) => [entry.type, entry.details.status])).toEqual([
      ['account.status_changed', 'disabled'],
    ])
    expect(writer.stats().queued).toBe(0)
  })
})
