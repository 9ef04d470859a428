import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresOAuthServerStore,
  PostgresRateLimitStore,
} from '@portcullis/postgres'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRANT_ID_CLAIM } from '../src/index.js'
import { ACCOUNT_ID, type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode } from './support/oauth-client.js'

/**
 * The authorization server on Postgres while the database keeps dropping its connections: every 300 ms
 * for 5 s, each backend of the server's pool is terminated (`pg_terminate_backend`, what a failover or an
 * operator does) while clients refresh their tokens in a loop. A refresh the database fails must be a
 * 503 with `Retry-After` and an OAuth error body, never a 500, and must not spend the refresh token: each
 * client retries with the token it holds, and no grant may be lost (a failed rotation taken for a reuse
 * revokes the grant).
 */
const APPLICATION = 'portcullis-as-faults'
const CLIENTS = 6
const REDIRECT = 'http://127.0.0.1:49152/callback'

let database: TestDatabase
let direct: PostgresClient
let served: PostgresClient
let h: Harness

beforeAll(async () => {
  database = await createTestDatabase()
  direct = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
  await migrate(direct)
  served = createPostgresClient({
    connectionString: database.connectionString,
    maxConnections: 4,
    applicationName: APPLICATION,
    connectionTimeoutMs: 3_000,
    statementTimeoutMs: 3_000,
    queryTimeoutMs: 4_000,
  })
  const accounts = new PostgresAccountStore({ client: served })
  const created = await new PostgresAccountStore({ client: direct }).createAccount({
    accountId: ACCOUNT_ID,
    username: 'alice',
    passwordHash: '$argon2id$not-a-real-hash',
    now: new Date(),
  })
  if (created.outcome !== 'created') throw new Error(`setup: ${created.outcome}`)
  h = await startHarness({
    overrides: { store: new PostgresOAuthServerStore({ client: served }), accounts },
  })
}, 120_000)

afterAll(async () => {
  await h?.close()
  await served?.close()
  await direct?.close()
  await database?.close()
})

interface Client {
  readonly clientId: string
  readonly grantId: string
  refreshToken: string
}

async function connect(index: number): Promise<Client> {
  const clientId = h.documents.client(`/faults-${index}.json`)
  const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
  if (outcome.code === undefined) throw new Error(`no code: ${outcome.response.status}`)
  const token = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code, outcome.verifier)
  if (token.status !== 200) throw new Error(`code not redeemed: ${JSON.stringify(token.body)}`)
  const grantId = decodeJwt(token.body.access_token as string)[GRANT_ID_CLAIM] as string
  return { clientId, grantId, refreshToken: token.body.refresh_token as string }
}

interface Answer {
  readonly status: number
  readonly error: unknown
  readonly retryAfter: string | null
  readonly json: boolean
}

async function refreshOnce(client: Client): Promise<Answer> {
  const response = await fetch(`${h.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: client.refreshToken,
    }),
  })
  const text = await response.text()
  let body: Record<string, unknown> = {}
  let json = true
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    json = false
  }
  if (response.status === 200) client.refreshToken = body.refresh_token as string
  return { status: response.status, error: body.error, retryAfter: response.headers.get('retry-after'), json }
}

const terminate = async (): Promise<number> => {
  const result = await direct.pool.query<{ killed: boolean }>(
    `select pg_terminate_backend(pid) as killed from pg_stat_activity
     where datname = current_database() and application_name = $1`,
    [APPLICATION],
  )
  return result.rows.filter((row) => row.killed).length
}

describe('the token endpoint while Postgres backends are terminated every 300 ms for 5 s', () => {
  it('answers 503 with Retry-After (never 500), spends no refresh token and loses no grant', async () => {
    const clients: Client[] = []
    for (let index = 0; index < CLIENTS; index++) clients.push(await connect(index))
    const answers: Answer[] = []
    let running = true
    const loop = async (client: Client) => {
      while (running) {
        const answer = await refreshOnce(client)
        answers.push(answer)
        // A client told to wait retries soon with the refresh token it still holds.
        if (answer.status === 503) await new Promise((resolve) => setTimeout(resolve, 50))
        if (answer.status === 400) return
      }
    }
    const loops = clients.map(loop)
    let killed = 0
    const started = Date.now()
    // Five seconds of terminations, longer on a loaded machine until more than one refresh per client
    // succeeded (bounded at 20 s), so the progress check below measures the store, not the machine.
    const succeeded = () => answers.filter((answer) => answer.status === 200).length
    while (Date.now() - started < 5_000 || (succeeded() <= CLIENTS && Date.now() - started < 20_000)) {
      await new Promise((resolve) => setTimeout(resolve, 300))
      killed += await terminate()
    }
    running = false
    await Promise.all(loops)

    const count = (status: number) => answers.filter((answer) => answer.status === status).length
    const unavailable = answers.filter((answer) => answer.status === 503)
    const summary = {
      killed,
      answers: answers.length,
      ok: count(200),
      unavailable: unavailable.length,
      serverErrors: count(500),
      refused: count(400),
    }
    console.info('token endpoint under backend terminations:', summary)
    expect(killed).toBeGreaterThan(0)
    expect(count(200)).toBeGreaterThan(CLIENTS)
    expect(summary.serverErrors).toBe(0)
    expect(answers.filter((answer) => ![200, 503].includes(answer.status))).toEqual([])
    for (const answer of unavailable) {
      expect(answer).toEqual({ status: 503, error: 'temporarily_unavailable', retryAfter: '2', json: true })
    }
    // No grant was lost: each client's current refresh token still works and its grant is active.
    for (const client of clients) {
      expect(await h.server.provider.Grant.find(client.grantId)).toBeDefined()
      let answer = await refreshOnce(client)
      for (let attempt = 0; attempt < 5 && answer.status === 503; attempt++)
        answer = await refreshOnce(client)
      expect(answer.status).toBe(200)
    }
    expect((await h.server.connectedApps(ACCOUNT_ID)).map((app) => app.grantId).sort()).toEqual(
      clients.map((client) => client.grantId).sort(),
    )
  }, 60_000)
})

describe('refresh token reuse on Postgres', () => {
  it('two or more concurrent refreshes with one token: at most one gets tokens and the grant is revoked', async () => {
    const client = await connect(100)
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${h.issuer}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            client_id: client.clientId,
            refresh_token: client.refreshToken,
          }),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as Record<string, unknown>,
        })),
      ),
    )
    const winners = answers.filter((answer) => answer.status === 200)
    expect(winners.length).toBeLessThanOrEqual(1)
    expect(answers.filter((answer) => answer.body.error === 'invalid_grant').length).toBe(6 - winners.length)
    expect(await h.server.provider.Grant.find(client.grantId)).toBeUndefined()
    for (const winner of winners) {
      client.refreshToken = winner.body.refresh_token as string
      expect((await refreshOnce(client)).error).toBe('invalid_grant')
    }
  })
})

describe('registrations counted in PostgresRateLimitStore', () => {
  it('are one budget for every instance, IPv6 clients by their /64', async () => {
    const instance = (client: PostgresClient) =>
      startHarness({
        overrides: {
          store: new PostgresOAuthServerStore({ client }),
          registration: {
            rateLimit: { perMinute: 3 },
            rateLimits: new PostgresRateLimitStore({ client }),
            trustedProxies: ['127.0.0.1'],
          },
        },
      })
    const first = await instance(direct)
    const second = await instance(served)
    const register = (issuer: string, address: string) =>
      fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], application_type: 'native' }),
      }).then((response) => response.status)
    try {
      const statuses: number[] = []
      for (let i = 1; i <= 8; i++) {
        statuses.push(await register((i % 2 === 0 ? first : second).issuer, `2001:db8:42:7::${i}`))
      }
      expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429])
      expect(await register(first.issuer, '2001:db8:42:8::1')).toBe(201)
    } finally {
      await first.close()
      await second.close()
    }
  })
})
