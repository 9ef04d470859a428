import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createPostgresClient,
  type PostgresClient,
  PostgresLocalAccountStore,
  PostgresOAuthAccountStore,
  PostgresOAuthTransactionStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
  PostgresStepUpStore,
} from '../src/index.js'
import { accountFixtures, NOW } from './support/accounts.js'
import { apiKeyInstance } from './support/api-keys.js'
import { migratedDatabase, realProtector } from './support/database.js'
import { sampleTransaction } from './support/oauth-transactions.js'

/**
 * Faults between the pool and the server, through a loopback TCP proxy: a connection cut while a store
 * operation that writes is in flight, and a connection that stalls. The shared server is never touched;
 * only the proxy breaks. Each cut case parks the operation on a lock held by another session (so it is
 * mid-flight: inside its transaction or its one statement), cuts every proxied connection, lets the
 * server finish whatever it still can, and then reads the tables: the rows are fully written or untouched,
 * never partial, and the next operation on the same pool succeeds.
 */
const db = await migratedDatabase()
const embedded = !db.database.concurrent
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

const protector = realProtector()
const { identity, tokens } = accountFixtures(db)

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

const hex = () => createHash('sha256').update(randomBytes(32)).digest('hex')

function session(overrides: { accountId?: string } = {}) {
  const now = new Date()
  return {
    digest: hex(),
    handle: randomBytes(16).toString('base64url'),
    accountId: overrides.accountId ?? `account-${randomUUID()}`,
    securityEpoch: 1,
    createdAt: now,
    lastSeenAt: now,
    idleExpiresAt: new Date(now.getTime() + 1_800_000),
    absoluteExpiresAt: new Date(now.getTime() + 28_800_000),
  }
}

const direct = (sql: string, values: unknown[] = []) => db.client.pool.query(sql, values)

async function one<T>(sql: string, values: unknown[] = []): Promise<T | undefined> {
  return (await direct(sql, values)).rows[0] as T | undefined
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

type Outcome = 'written' | 'untouched'

interface FaultCase {
  readonly name: string
  /** The table the operation is parked on (locked by another session). */
  readonly table: string
  /** One operation on fresh data; `check` reads the tables and says which whole outcome they show. */
  prepare(client: PostgresClient): Promise<{ run(): Promise<unknown>; check(): Promise<Outcome> }>
  /** Operations that are one transaction of several statements can only end untouched after a cut. */
  readonly multiStatement: boolean
}

function accountStore(client: PostgresClient, clientId = 'client-1') {
  return new PostgresOAuthAccountStore({ client, provider: 'example-idp', clientId, protector })
}

async function linked(client: PostgresClient) {
  const login = await accountStore(client).login({
    identity: identity(),
    grant: { scopes: ['openid'] },
    tokens: tokens('seed'),
    provisionUnknown: true,
    now: NOW,
  })
  return { accountId: login.link.accountId, providerAccountId: login.link.providerAccountId }
}

function partial(what: string): never {
  throw new Error(`partial write: ${what}`)
}

const cases: readonly FaultCase[] = [
  {
    name: 'account login with provisioning',
    table: 'portcullis_oauth_token_vault',
    multiStatement: true,
    async prepare(client) {
      const person = identity()
      return {
        run: () =>
          accountStore(client).login({
            identity: person,
            grant: { scopes: ['openid'] },
            tokens: tokens('login'),
            provisionUnknown: true,
            now: NOW,
          }),
        async check() {
          const link = await one<{ id: string; account: string }>(
            'select provider_account_id as id, account_id as account from portcullis_oauth_links where subject = $1',
            [person.subject],
          )
          if (link === undefined) return 'untouched'
          const vault = await one(
            'select 1 from portcullis_oauth_token_vault where provider_account_id = $1',
            [link.id],
          )
          return vault === undefined ? partial('link without vault') : 'written'
        },
      }
    },
  },
  {
    name: 'account link',
    table: 'portcullis_oauth_token_vault',
    multiStatement: true,
    async prepare(client) {
      const { accountId } = await linked(db.client)
      const store = new PostgresOAuthAccountStore({
        client,
        provider: 'second-idp',
        clientId: 'c',
        protector,
      })
      return {
        run: () =>
          store.link({
            accountId,
            identity: identity('second-idp'),
            grant: { scopes: ['openid'] },
            tokens: tokens('link'),
            now: NOW,
          }),
        async check() {
          const count = await one<{ links: number }>(
            'select provider_links as links from portcullis_accounts where account_id = $1',
            [accountId],
          )
          const link = await store.resolveLink({ accountId, provider: 'second-idp' })
          if (link === null) return count?.links === 1 ? 'untouched' : partial('count without link')
          return count?.links === 2 ? 'written' : partial('link without count')
        },
      }
    },
  },
  {
    name: 'account scope upgrade',
    table: 'portcullis_oauth_token_vault',
    multiStatement: true,
    async prepare(client) {
      const person = identity()
      const first = await accountStore(db.client).login({
        identity: person,
        grant: { scopes: ['openid'] },
        tokens: tokens('first'),
        provisionUnknown: true,
        now: NOW,
      })
      const store = accountStore(client)
      return {
        run: () =>
          store.upgradeScopes({
            accountId: first.link.accountId,
            providerAccountId: first.link.providerAccountId,
            identity: person,
            grant: { scopes: ['openid', 'calendar'] },
            tokens: tokens('upgraded'),
            now: NOW,
          }),
        async check() {
          const link = await store.resolveLink({ accountId: first.link.accountId, provider: 'example-idp' })
          const version = (await store.getTokens(first.link.providerAccountId))?.reference.version
          const upgraded = link?.grant.scopes.includes('calendar')
          if (upgraded) return version === 2 ? 'written' : partial('grant without tokens')
          return version === 1 ? 'untouched' : partial('tokens without grant')
        },
      }
    },
  },
  {
    name: 'account unlink',
    table: 'portcullis_oauth_token_vault',
    multiStatement: true,
    async prepare(client) {
      const { accountId, providerAccountId } = await linked(db.client)
      await accountStore(db.client).adjustLoginMethods({ accountId, delta: 1 })
      const store = accountStore(client)
      return {
        run: () => store.unlink({ accountId, provider: 'example-idp', providerAccountId }),
        async check() {
          const link = await store.resolveLink({ accountId, provider: 'example-idp' })
          const methods = (await store.getAccount(accountId))?.loginMethods
          const tokensLeft = await store.getTokens(providerAccountId)
          if (link === null) return methods === 1 && tokensLeft === null ? 'written' : partial('unlink')
          return methods === 2 && tokensLeft !== null ? 'untouched' : partial('unlink')
        },
      }
    },
  },
  {
    name: 'account login-method change',
    table: 'portcullis_accounts',
    multiStatement: true,
    async prepare(client) {
      const { accountId } = await linked(db.client)
      const store = accountStore(client)
      return {
        run: () => store.adjustLoginMethods({ accountId, delta: 1 }),
        async check() {
          return (await store.getAccount(accountId))?.loginMethods === 2 ? 'written' : 'untouched'
        },
      }
    },
  },
  {
    name: 'account registration',
    table: 'portcullis_accounts',
    multiStatement: false,
    async prepare(client) {
      const accountId = `acct-fault-${randomUUID()}`
      const store = accountStore(client)
      return {
        run: () => store.registerAccount({ accountId, loginMethods: 1 }),
        async check() {
          return (await store.getAccount(accountId)) === null ? 'untouched' : 'written'
        },
      }
    },
  },
  {
    name: 'token refresh compare-and-swap',
    table: 'portcullis_oauth_token_vault',
    multiStatement: false,
    async prepare(client) {
      const { providerAccountId } = await linked(db.client)
      const store = accountStore(client)
      const next = tokens('swapped')
      return {
        run: () => store.replaceTokens({ providerAccountId, expectedVersion: 1, tokens: next }),
        async check() {
          const stored = await store.getTokens(providerAccountId)
          if (stored?.reference.version === 2) {
            return stored.tokens.accessToken === next.accessToken
              ? 'written'
              : partial('version without tokens')
          }
          return stored?.reference.version === 1 ? 'untouched' : partial('vault lost')
        },
      }
    },
  },
  {
    name: 'token discard',
    table: 'portcullis_oauth_token_vault',
    multiStatement: false,
    async prepare(client) {
      const { providerAccountId } = await linked(db.client)
      const store = accountStore(client)
      return {
        run: () => store.discardTokens({ providerAccountId, expectedVersion: 1 }),
        async check() {
          return (await store.getTokens(providerAccountId)) === null ? 'written' : 'untouched'
        },
      }
    },
  },
  {
    name: 'revocation retry staging',
    table: 'portcullis_oauth_revocation_retries',
    multiStatement: false,
    async prepare(client) {
      const { providerAccountId } = await linked(db.client)
      const store = accountStore(client)
      return {
        run: () =>
          store.stageRevocationRetry({
            providerAccountId,
            expectedVersion: 1,
            tokens: tokens('staged'),
            failedTokenTypes: ['refresh_token'],
            occurredAt: NOW,
          }),
        async check() {
          const retry = await one(
            'select 1 from portcullis_oauth_revocation_retries where provider_account_id = $1',
            [providerAccountId],
          )
          const kept = await store.getTokens(providerAccountId)
          if (retry === undefined) return kept !== null ? 'untouched' : partial('tokens cleared, no retry')
          return kept === null ? 'written' : partial('retry staged, tokens kept')
        },
      }
    },
  },
  {
    name: 'revocation retry claim and completion',
    table: 'portcullis_oauth_revocation_retries',
    multiStatement: true,
    async prepare(client) {
      const clientId = `claims-${randomUUID()}`
      const owner = accountStore(db.client, clientId)
      const login = await owner.login({
        identity: identity(),
        grant: { scopes: ['openid'] },
        tokens: tokens('retained'),
        provisionUnknown: true,
        now: NOW,
      })
      const staged = await owner.stageRevocationRetry({
        providerAccountId: login.link.providerAccountId,
        expectedVersion: 1,
        tokens: tokens('staged'),
        failedTokenTypes: ['refresh_token'],
        occurredAt: NOW,
      })
      const store = accountStore(client, clientId)
      return {
        run: () => store.claimRevocationRetries({ now: NOW, leaseSeconds: 60, limit: 10 }),
        async check() {
          const row = await one<{ claim: string | null; attempts: number }>(
            'select claim, attempts from portcullis_oauth_revocation_retries where retry_id = $1',
            [staged?.retryId],
          )
          if (row?.claim === null) return row.attempts === 0 ? 'untouched' : partial('attempt without claim')
          return row?.attempts === 1 ? 'written' : partial('claim without attempt')
        },
      }
    },
  },
  {
    name: 'step-up credential save',
    table: 'portcullis_step_up_credentials',
    multiStatement: false,
    async prepare(client) {
      const digest = randomBytes(32).toString('base64url').slice(0, 43)
      const store = new PostgresStepUpStore({ client })
      return {
        run: () =>
          store.save({
            digest,
            accountId: 'acct-step-up',
            purpose: 'payout',
            securityEpoch: 1,
            sessionDigest: randomBytes(32).toString('base64url').slice(0, 43),
            issuedAt: new Date(),
            authenticatedAt: new Date(),
            expiresAt: new Date(Date.now() + 300_000),
          }),
        async check() {
          const row = await one('select 1 from portcullis_step_up_credentials where digest = $1', [digest])
          return row === undefined ? 'untouched' : 'written'
        },
      }
    },
  },
  {
    name: 'API-key rotation with overlap',
    table: 'portcullis_api_keys',
    multiStatement: true,
    async prepare(client) {
      const owner = apiKeyInstance(db.client, () => Date.now())
      const current = await owner.service.issue({ ownerId: `svc-${randomUUID()}` })
      const { service } = apiKeyInstance(client, () => Date.now())
      return {
        run: () => service.rotate(current.keyId, { overlapSeconds: 60 }),
        async check() {
          const rows = await direct(
            'select key_id, revoked_at from portcullis_api_keys where owner_id = $1',
            [current.ownerId],
          )
          const revoked = rows.rows.find((row) => row.key_id === current.keyId)?.revoked_at !== null
          if (rows.rowCount === 1) return revoked ? partial('revoked without replacement') : 'untouched'
          return rows.rowCount === 2 && revoked ? 'written' : partial('replacement without revocation')
        },
      }
    },
  },
  {
    name: 'API-key revocation and usage recording',
    table: 'portcullis_api_keys',
    multiStatement: false,
    async prepare(client) {
      const owner = apiKeyInstance(db.client, () => Date.now())
      const current = await owner.service.issue({ ownerId: `svc-${randomUUID()}` })
      const { store } = apiKeyInstance(client, () => Date.now())
      return {
        run: () => store.revoke(current.keyId, new Date()),
        async check() {
          const row = await one<{ revoked: boolean }>(
            'select revoked_at is not null as revoked from portcullis_api_keys where key_id = $1',
            [current.keyId],
          )
          return row?.revoked ? 'written' : 'untouched'
        },
      }
    },
  },
  {
    name: 'OAuth transaction consume',
    table: 'portcullis_oauth_transactions',
    multiStatement: false,
    async prepare(client) {
      const transaction = sampleTransaction(new Date())
      await new PostgresOAuthTransactionStore({ client: db.client, protector }).create(transaction)
      const store = new PostgresOAuthTransactionStore({ client, protector })
      return {
        run: () => store.consume(transaction, new Date()),
        async check() {
          const row = await one('select 1 from portcullis_oauth_transactions where state_digest = $1', [
            Buffer.from(transaction.stateDigest),
          ])
          return row === undefined ? 'written' : 'untouched'
        },
      }
    },
  },
  {
    name: 'local account creation with an invite',
    table: 'portcullis_local_accounts',
    multiStatement: true,
    async prepare(client) {
      const invite = hex()
      const now = new Date()
      await new PostgresLocalAccountStore({ client: db.client }).issueInvite({
        digest: invite,
        expiresAt: new Date(now.getTime() + 600_000),
        now,
      })
      const username = `fault-${randomUUID().slice(0, 12)}`
      const store = new PostgresLocalAccountStore({ client })
      return {
        run: () =>
          store.createAccount({
            accountId: randomUUID(),
            username,
            passwordHash: '$argon2id$x',
            now,
            invite: { digest: invite },
          }),
        async check() {
          const account = await store.findAccount({ username })
          const left = await one<{ used: boolean }>(
            'select consumed_at is not null as used from portcullis_local_account_invites where digest = $1',
            [invite],
          )
          if (account === null) return left?.used ? partial('invite burned without account') : 'untouched'
          return left?.used ? 'written' : partial('account without invite use')
        },
      }
    },
  },
  {
    name: 'password change with an epoch bump',
    table: 'portcullis_local_accounts',
    multiStatement: false,
    async prepare(client) {
      const accountId = randomUUID()
      const now = new Date()
      await new PostgresLocalAccountStore({ client: db.client }).createAccount({
        accountId,
        username: `fault-${randomUUID().slice(0, 12)}`,
        passwordHash: '$argon2id$old',
        now,
      })
      const store = new PostgresLocalAccountStore({ client })
      return {
        run: () => store.setPassword({ accountId, passwordHash: '$argon2id$new', now, bumpEpoch: true }),
        async check() {
          const account = await store.findAccount({ accountId })
          if (account?.passwordHash === '$argon2id$new') {
            return account.securityEpoch === 2 ? 'written' : partial('password without epoch')
          }
          return account?.securityEpoch === 1 ? 'untouched' : partial('epoch without password')
        },
      }
    },
  },
  {
    name: 'session rotation (create replacing the old one)',
    table: 'portcullis_sessions',
    multiStatement: true,
    async prepare(client) {
      const old = session()
      await new PostgresSessionStore({ client: db.client }).create({ session: old })
      const next = session({ accountId: old.accountId })
      const store = new PostgresSessionStore({ client })
      return {
        run: () => store.create({ session: next, replaces: old.digest }),
        async check() {
          const [before, after] = [
            await store.get(old.digest, new Date()),
            await store.get(next.digest, new Date()),
          ]
          if (after === null) return before !== null ? 'untouched' : partial('old gone, new missing')
          return before === null ? 'written' : partial('both sessions live')
        },
      }
    },
  },
  {
    name: 'session revocation of every session but one',
    table: 'portcullis_sessions',
    multiStatement: false,
    async prepare(client) {
      const keep = session()
      const others = [session({ accountId: keep.accountId }), session({ accountId: keep.accountId })]
      const seed = new PostgresSessionStore({ client: db.client })
      for (const each of [keep, ...others]) await seed.create({ session: each })
      const store = new PostgresSessionStore({ client })
      return {
        run: () => store.revoke({ accountId: keep.accountId, all: true, exceptDigest: keep.digest }),
        async check() {
          const live = await store.list({ accountId: keep.accountId, now: new Date() })
          if (live.length === 1) return 'written'
          return live.length === 3 ? 'untouched' : partial(`${live.length} sessions left`)
        },
      }
    },
  },
  {
    name: 'refresh-token family creation and rotation',
    table: 'portcullis_refresh_tokens',
    multiStatement: true,
    async prepare(client) {
      const store = new PostgresRefreshTokenStore({ client })
      const familyId = randomUUID()
      const now = new Date()
      const first = hex()
      await new PostgresRefreshTokenStore({ client: db.client }).createFamily({
        familyId,
        accountId: 'acct-fault',
        securityEpoch: 1,
        createdAt: now,
        absoluteExpiresAt: new Date(now.getTime() + 86_400_000),
        token: { digest: first, expiresAt: new Date(now.getTime() + 3_600_000) },
      })
      const next = hex()
      return {
        run: () =>
          store.rotate({
            presentedDigest: first,
            next: { digest: next, expiresAt: new Date(now.getTime() + 3_600_000) },
            now,
          }),
        async check() {
          const rows = await direct(
            'select digest, rotated_at from portcullis_refresh_tokens where family_id = $1',
            [familyId],
          )
          const rotated = rows.rows.find((row) => row.digest === first)?.rotated_at !== null
          if (rows.rowCount === 1) return rotated ? partial('rotated without successor') : 'untouched'
          return rows.rowCount === 2 && rotated ? 'written' : partial('successor without rotation')
        },
      }
    },
  },
  {
    name: 'rate-limit consume',
    table: 'portcullis_rate_limits',
    multiStatement: false,
    async prepare(client) {
      const key = hex()
      const store = new PostgresRateLimitStore({ client })
      return {
        run: () => store.consume({ key, limit: 5, windowSeconds: 60, now: new Date() }),
        async check() {
          const row = await one('select 1 from portcullis_rate_limits where limit_key = $1', [key])
          return row === undefined ? 'untouched' : 'written'
        },
      }
    },
  },
]

describe.skipIf(embedded)('a connection cut mid-operation (loopback proxy)', () => {
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

describe.skipIf(embedded)('a connection that stalls (loopback proxy)', () => {
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
