import { randomBytes, randomUUID } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresClient, type PostgresClient, PostgresStepUpStore } from '../src/index.js'
import { NOW } from './support/accounts.js'
import { migratedDatabase } from './support/database.js'
import { accountFaultCases } from './support/fault-cases-accounts.js'
import { codeFaultCases } from './support/fault-cases-codes.js'
import { identityNoticeFaultCases } from './support/fault-cases-identity-notices.js'
import { joinRequestFaultCases } from './support/fault-cases-join-requests.js'
import { localAccountFaultCases } from './support/fault-cases-local.js'
import { mailFaultCases } from './support/fault-cases-mail.js'
import { passkeyFaultCases } from './support/fault-cases-passkeys.js'
import { reencryptionFaultCases } from './support/fault-cases-reencryption.js'
import { securityLogFaultCases } from './support/fault-cases-security-log.js'
import { signUpFaultCases } from './support/fault-cases-sign-up.js'
import { totpFaultCases } from './support/fault-cases-totp.js'
import { faultKit } from './support/faults.js'

/**
 * Faults between the pool and the server, through a loopback TCP proxy: a connection cut while a store
 * operation that writes is in flight, and a connection that stalls. The shared server is never touched;
 * only the proxy breaks. Each cut case parks the operation on a lock held by another session (so it is
 * mid-flight: inside its transaction or its one statement), cuts every proxied connection, lets the
 * server finish whatever it still can, and then reads the tables: the rows are fully written or untouched,
 * never partial, and the next operation on the same pool succeeds.
 */
const db = await migratedDatabase()
let proxy: FaultProxy
const clients: PostgresClient[] = []
beforeAll(async () => {
  const target = new URL(db.database.connectionString)
  proxy = await startFaultProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) })
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await proxy?.close()
  await db.close()
})

const kit = faultKit(db)
const cases = [
  ...accountFaultCases(kit),
  ...localAccountFaultCases(kit),
  ...reencryptionFaultCases(kit),
  ...mailFaultCases(kit),
  ...codeFaultCases(kit),
  ...signUpFaultCases(kit),
  ...securityLogFaultCases(kit),
  ...totpFaultCases(kit),
  ...passkeyFaultCases(kit),
  ...identityNoticeFaultCases(kit),
  ...joinRequestFaultCases(kit),
]
const { identity, accountStore, one } = kit
function proxied(options: { statementTimeoutMs?: number; queryTimeoutMs?: number } = {}) {
  const name = `faulty-${randomUUID().slice(0, 8)}`
  const client = createPostgresClient({
    connectionString: proxy.through(db.database.connectionString),
    maxConnections: 2,
    connectionTimeoutMs: 2_000,
    applicationName: name,
    ...options,
  })
  clients.push(client)
  return { client, name }
}

async function backendOf(name: string, waiting: boolean): Promise<number | undefined> {
  const row = await one<{ pid: number }>(
    `select pid from pg_stat_activity where application_name = $1 ${waiting ? "and wait_event_type = 'Lock'" : ''}`,
    [name],
  )
  return row?.pid
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`timed out waiting until ${what}`)
}

function codeOf(error: unknown): string | undefined {
  return isPortcullisError(error) ? error.code : `<${String(error)}>`
}

describe('a connection cut mid-operation (loopback proxy)', () => {
  it.each(cases)('$name: unavailable, then whole or untouched, and the pool serves again', async (fault) => {
    const { client, name } = proxied()
    const attempt = await fault.prepare(client)
    const holder = await db.client.pool.connect()
    let error: unknown
    try {
      await holder.query('begin')
      await holder.query(`lock table ${fault.table} in access exclusive mode`)
      const pending = attempt.run().then(
        () => undefined,
        (caught: unknown) => caught,
      )
      await until(async () => (await backendOf(name, true)) !== undefined, 'the operation waits on the lock')
      proxy.cut()
      error = await pending
    } finally {
      await holder.query('rollback')
      holder.release()
    }
    expect(codeOf(error)).toBe('postgres.unavailable')
    // The server runs what it already received to its end (a single statement commits; an open
    // transaction is rolled back when its backend finds the client gone).
    await until(async () => (await backendOf(name, false)) === undefined, 'the cut backend ends')
    const outcome = await attempt.check()
    if (fault.multiStatement) expect(outcome).toBe('untouched')
    else expect(['written', 'untouched']).toContain(outcome)
    expect(await client.ping()).toBe(true)
    const again = await fault.prepare(client)
    await again.run()
    expect(await again.check()).toBe('written')
  })
})

describe('a connection that stalls (loopback proxy)', () => {
  it('past the statement timeout: unavailable (never invalid, never a wrong answer), then serves again', async () => {
    const { client } = proxied({ statementTimeoutMs: 300, queryTimeoutMs: 600 })
    const store = new PostgresStepUpStore({ client })
    const digest = randomBytes(32).toString('base64url').slice(0, 43)
    expect(await store.take(digest)).toBeNull()
    proxy.stall()
    const started = performance.now()
    let error: unknown
    try {
      error = await store.take(digest).then(
        () => undefined,
        (caught: unknown) => caught,
      )
    } finally {
      proxy.resume()
    }
    expect(codeOf(error)).toBe('postgres.unavailable')
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(await store.take(digest)).toBeNull()
  })

  it('a transaction stalled past the statement timeout rolls back whole', async () => {
    const { client } = proxied({ statementTimeoutMs: 300, queryTimeoutMs: 600 })
    const store = accountStore(client)
    const person = identity()
    proxy.stall()
    let error: unknown
    try {
      error = await store
        .login({ identity: person, grant: { scopes: ['openid'] }, provisionUnknown: true, now: NOW })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        )
    } finally {
      proxy.resume()
    }
    expect(codeOf(error)).toBe('postgres.unavailable')
    const link = await one('select 1 from portcullis_oauth_links where subject = $1', [person.subject])
    expect(link).toBeUndefined()
    expect(
      (
        await store.login({
          identity: person,
          grant: { scopes: ['openid'] },
          provisionUnknown: true,
          now: NOW,
        })
      ).provisioned,
    ).toBe(true)
  })
})
