import { randomUUID } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createPostgresClient,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_TABLE,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
} from '../src/index.js'
import { accountFixtures, NOW } from './support/accounts.js'
import { migratedDatabase } from './support/database.js'

/**
 * A backend terminated (`pg_terminate_backend`: what a failover, a restart or an operator does) while
 * it serves a store transaction. The borrowed connection emits 'error'; before the fix nothing listened
 * and the process ended. Each case parks the victim transaction on a lock held by another session
 * after it has written (where it writes at all), terminates its backend, and then checks: the operation
 * reports `postgres.unavailable`, nothing it wrote survived, the process is alive (vitest fails the run
 * on an uncaught error), and the same store's next operation succeeds on a fresh connection.
 */
const db = await migratedDatabase()
// What would have ended the process: an 'error' event nobody listens to becomes an uncaught exception.
const uncaught: unknown[] = []
const record = (error: unknown) => {
  uncaught.push(error)
}
beforeAll(() => {
  process.on('uncaughtException', record)
})
afterEach(() => {
  expect(uncaught.splice(0).map(String)).toEqual([])
})
afterAll(async () => {
  process.off('uncaughtException', record)
  await db.close()
})
const { store, identity, tokens, countRows } = accountFixtures(db)
const TABLES = [
  'portcullis_accounts',
  'portcullis_oauth_links',
  'portcullis_oauth_token_vault',
  'portcullis_oauth_revocation_retries',
  MIGRATIONS_TABLE,
]

function victimClient(): { client: PostgresClient; name: string } {
  const name = `victim-${randomUUID().slice(0, 8)}`
  const client = createPostgresClient({
    connectionString: db.database.connectionString,
    maxConnections: 2,
    applicationName: name,
  })
  return { client, name }
}

async function snapshot(): Promise<number[]> {
  return Promise.all(TABLES.map(countRows))
}

/**
 * Holds `lock` (a statement run inside an open transaction on another session) until the victim's
 * backend waits on it, terminates that backend, then lets go.
 */
async function terminateWhileWaiting<T>(
  name: string,
  lock: string,
  operation: () => Promise<T>,
): Promise<unknown> {
  const holder = await db.client.pool.connect()
  try {
    await holder.query('begin')
    await holder.query(lock)
    const pending = operation().then(
      () => undefined,
      (error: unknown) => error,
    )
    let pid: number | undefined
    for (let attempt = 0; attempt < 500 && pid === undefined; attempt += 1) {
      // Polled from another session: inside the holder's transaction the activity view is a snapshot.
      const waiting = await db.client.pool.query<{ pid: number }>(
        "select pid from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
        [name],
      )
      pid = waiting.rows[0]?.pid
      if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(pid, 'the victim never waited on the lock').toBeTypeOf('number')
    await holder.query('select pg_terminate_backend($1)', [pid])
    const error = await pending
    return error
  } finally {
    await holder.query('rollback')
    holder.release()
  }
}

function codeOf(error: unknown): string | undefined {
  return isPortcullisError(error) ? error.code : `<${String(error)}>`
}

async function linkedAccount(): Promise<{ accountId: string; providerAccountId: string }> {
  const login = await store().login({
    identity: identity(),
    grant: { scopes: ['openid'] },
    tokens: tokens('seed'),
    provisionUnknown: true,
    now: NOW,
  })
  return { accountId: login.link.accountId, providerAccountId: login.link.providerAccountId }
}

/** Adds a password method (an accounts-row transaction) to an account made by a provider sign-in. */
function addPassword(accounts: PostgresAccountStore, accountId: string, username = `killed.${randomUUID()}`) {
  return accounts.addPassword({ accountId, username, passwordHash: '$argon2id$killed', now: NOW })
}

const LOCK_VAULT = 'lock table portcullis_oauth_token_vault in access exclusive mode'
const LOCK_ACCOUNTS = 'lock table portcullis_accounts in access exclusive mode'
const LOCK_RETRIES = 'lock table portcullis_oauth_revocation_retries in access exclusive mode'

describe('a backend terminated inside a store transaction', () => {
  it('login with provisioning: unavailable, the new account and link rolled back, the retry succeeds', async () => {
    const { client, name } = victimClient()
    try {
      const victim = store({ client })
      const person = identity()
      const request = {
        identity: person,
        grant: { scopes: ['openid'] },
        tokens: tokens('login'),
        provisionUnknown: true,
        now: NOW,
      }
      const before = await snapshot()
      // The account and link rows are inserted before the vault row, so the kill lands after writes.
      const error = await terminateWhileWaiting(name, LOCK_VAULT, () => victim.login(request))
      expect(codeOf(error)).toBe('postgres.unavailable')
      expect(await snapshot()).toEqual(before)
      const retried = await victim.login(request)
      expect(retried.provisioned).toBe(true)
      const after = await snapshot()
      expect(after.slice(0, 3)).toEqual([(before[0] ?? 0) + 1, (before[1] ?? 0) + 1, (before[2] ?? 0) + 1])
      expect((await victim.getTokens(retried.link.providerAccountId))?.tokens.accessToken).toBe(
        request.tokens.accessToken,
      )
    } finally {
      await client.close()
    }
  })

  it('link: unavailable, no link written, the retry links', async () => {
    const { client, name } = victimClient()
    try {
      const victim = store({ client, provider: 'second-idp' })
      const { accountId } = await linkedAccount()
      const request = {
        accountId,
        identity: identity('second-idp'),
        grant: { scopes: ['openid'] },
        tokens: tokens('link'),
        now: NOW,
      }
      const before = await snapshot()
      const error = await terminateWhileWaiting(name, LOCK_VAULT, () => victim.link(request))
      expect(codeOf(error)).toBe('postgres.unavailable')
      expect(await snapshot()).toEqual(before)
      expect(await victim.resolveLink({ accountId, provider: 'second-idp' })).toBeNull()
      expect((await victim.link(request)).status).toBe('linked')
      expect(await victim.getAccount(accountId)).toEqual({ accountId, loginMethods: 2 })
    } finally {
      await client.close()
    }
  })

  it('scope upgrade: unavailable, grant and tokens unchanged, the retry upgrades', async () => {
    const { client, name } = victimClient()
    try {
      const victim = store({ client })
      const person = identity()
      const first = await victim.login({
        identity: person,
        grant: { scopes: ['openid'] },
        tokens: tokens('first'),
        provisionUnknown: true,
        now: NOW,
      })
      const request = {
        accountId: first.link.accountId,
        providerAccountId: first.link.providerAccountId,
        identity: person,
        grant: { scopes: ['openid', 'calendar'] },
        tokens: tokens('upgraded'),
        now: NOW,
      }
      const error = await terminateWhileWaiting(name, LOCK_VAULT, () => victim.upgradeScopes(request))
      expect(codeOf(error)).toBe('postgres.unavailable')
      const unchanged = await victim.resolveLink({ accountId: first.link.accountId, provider: 'example-idp' })
      expect(unchanged?.grant.scopes).toEqual(['openid'])
      expect((await victim.getTokens(first.link.providerAccountId))?.reference.version).toBe(1)
      const upgraded = await victim.upgradeScopes(request)
      expect([...upgraded.link.grant.scopes].sort()).toEqual(['calendar', 'openid'])
    } finally {
      await client.close()
    }
  })

  it('unlink: unavailable, the link and its tokens stay, the retry unlinks', async () => {
    const { client, name } = victimClient()
    try {
      const victim = store({ client })
      const { accountId, providerAccountId } = await linkedAccount()
      await addPassword(new PostgresAccountStore({ client: db.client }), accountId)
      const request = { accountId, provider: 'example-idp', providerAccountId }
      const error = await terminateWhileWaiting(name, LOCK_VAULT, () => victim.unlink(request))
      expect(codeOf(error)).toBe('postgres.unavailable')
      expect((await victim.resolveLink({ accountId, provider: 'example-idp' }))?.providerAccountId).toBe(
        providerAccountId,
      )
      expect(await victim.getTokens(providerAccountId)).not.toBeNull()
      expect(await victim.getAccount(accountId)).toEqual({ accountId, loginMethods: 2 })
      expect((await victim.unlink(request)).status).toBe('unlinked')
      expect(await victim.getAccount(accountId)).toEqual({ accountId, loginMethods: 1 })
    } finally {
      await client.close()
    }
  })

  it('adding a password: unavailable, the count unchanged, the retry adds it', async () => {
    const { client, name } = victimClient()
    try {
      const victim = store({ client })
      const accounts = new PostgresAccountStore({ client })
      const { accountId } = await linkedAccount()
      const username = `killed.${randomUUID()}`
      const error = await terminateWhileWaiting(name, LOCK_ACCOUNTS, () =>
        addPassword(accounts, accountId, username),
      )
      expect(codeOf(error)).toBe('postgres.unavailable')
      expect(await victim.getAccount(accountId)).toEqual({ accountId, loginMethods: 1 })
      expect((await addPassword(accounts, accountId, username)).outcome).toBe('added')
      expect(await victim.getAccount(accountId)).toEqual({ accountId, loginMethods: 2 })
    } finally {
      await client.close()
    }
  })

  it('retry claim: unavailable, nothing claimed, the retry claims the staged record', async () => {
    const { client, name } = victimClient()
    try {
      const victim = store({ client, clientId: `claims-${randomUUID()}` })
      const login = await victim.login({
        identity: identity(),
        grant: { scopes: ['openid'] },
        tokens: tokens('retained'),
        provisionUnknown: true,
        now: NOW,
      })
      const staged = await victim.stageRevocationRetry({
        providerAccountId: login.link.providerAccountId,
        expectedVersion: login.tokens?.version ?? 0,
        tokens: tokens('staged'),
        failedTokenTypes: ['refresh_token'],
        occurredAt: NOW,
      })
      const claim = { now: NOW, leaseSeconds: 60, limit: 10 }
      const error = await terminateWhileWaiting(name, LOCK_RETRIES, () =>
        victim.claimRevocationRetries(claim),
      )
      expect(codeOf(error)).toBe('postgres.unavailable')
      const row = await db.client.pool.query<{ attempts: number; claim: string | null }>(
        'select attempts, claim from portcullis_oauth_revocation_retries where retry_id = $1',
        [staged?.retryId],
      )
      expect(row.rows).toEqual([{ attempts: 0, claim: null }])
      const claimed = await victim.claimRevocationRetries(claim)
      expect(claimed.map((retry) => retry.retryId)).toEqual([staged?.retryId])
    } finally {
      await client.close()
    }
  })

  it('migrate: unavailable while waiting for the migration lock, then migrates on the next call', async () => {
    const { client, name } = victimClient()
    try {
      const before = await snapshot()
      const error = await terminateWhileWaiting(
        name,
        `select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`,
        () => migrate(client),
      )
      expect(codeOf(error)).toBe('postgres.unavailable')
      expect(await snapshot()).toEqual(before)
      expect((await migrate(client)).applied).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('a pool whose every connection was terminated keeps serving: the broken ones are discarded', async () => {
    const { client, name } = victimClient()
    try {
      const victim = new PostgresAccountStore({ client })
      for (let round = 0; round < 3; round += 1) {
        const { accountId } = await linkedAccount()
        const error = await terminateWhileWaiting(name, LOCK_ACCOUNTS, () => addPassword(victim, accountId))
        expect(codeOf(error)).toBe('postgres.unavailable')
      }
      expect(client.pool.totalCount).toBeLessThanOrEqual(2)
      expect(await client.ping()).toBe(true)
      const { accountId } = await linkedAccount()
      expect((await addPassword(victim, accountId)).outcome).toBe('added')
    } finally {
      await client.close()
    }
  })
})
