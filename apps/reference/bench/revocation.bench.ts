// Instant revocation at cache speed (issue 25; DESIGN.md section 5), on one Postgres database:
// - session route with the revocation listener (the default wiring with Postgres stores) vs a plain
//   Express GET of the same route (budget >= 0.75x);
// - API-key route (Postgres store) with the listener vs a plain GET (>= 0.8x);
// - strict mode (no listener, staleness 0: session and epoch in ONE statement per request) vs a plain
//   GET (>= 0.45x);
// - across two instances, each with its own pool and listener, both serving load: how long after a
//   revocation starts on A instance B still answers 200 (p50 / p99 over 200 revocations each, for
//   sessions and API keys; budget 100 ms at p99).
import { randomBytes, randomUUID } from 'node:crypto'
import { compareHttp, finish, listen, reportTable } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey } from '@portcullis/core/api-keys'
import { LocalAccounts, type PasswordHasher, type SessionSignIn } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { RevocationNotices } from '@portcullis/core/revocation'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createSecurity } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresRevocationNotices,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express from 'express'

const ORIGIN = 'https://bench.example'
const REVOCATIONS = 200
const body = { items: [1, 2, 3] }
const handler: express.RequestHandler = (_request, response) => {
  response.json(body)
}
// Sessions are created with establishSignIn: no password is ever hashed here.
const hasher: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}
const peppers = new ApiKeyPepperRing({ version: 'b1', secret: new Uint8Array(randomBytes(32)) })

const database = await createTestDatabase()
const connect = () =>
  createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
const clients: PostgresClient[] = [connect(), connect()]
const [clientA, clientB] = clients as [PostgresClient, PostgresClient]
await migrate(clientA)

/** One app instance: its own pool, its own listener (or none), local accounts and API keys over Postgres. */
async function instance(
  client: PostgresClient,
  options: { listener: boolean; maxStalenessSeconds?: number },
) {
  const notices: (RevocationNotices & { close(): Promise<void> }) | undefined = options.listener
    ? new PostgresRevocationNotices({ client })
    : undefined
  if (notices instanceof PostgresRevocationNotices) await notices.start()
  const local = new LocalAccounts({
    profile: 'session',
    accounts: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    hasher,
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    revocation: {
      ...(notices === undefined ? {} : { notices }),
      ...(options.maxStalenessSeconds === undefined
        ? {}
        : { maxStalenessSeconds: options.maxStalenessSeconds }),
    },
  })
  const keys = new ApiKeyService({
    store: new PostgresApiKeyStore({ client }),
    peppers,
    prefix: 'bench',
    ...(notices === undefined ? {} : { notices }),
  })
  const security = createSecurity({ mechanisms: [...local.mechanisms, apiKey({ service: keys })] })
  const router = security.router()
  router.get('/session', { auth: required('session') }, handler)
  router.get('/key', { auth: required('api-key') }, handler)
  const app = express()
  app.use(security.middleware)
  app.use(router)
  const server = await listen(app)
  return { local, keys, server, notices }
}

const a = await instance(clientA, { listener: true })
const b = await instance(clientB, { listener: true })
const strict = await instance(clientA, { listener: false, maxStalenessSeconds: 0 })
const polled = await instance(clientB, { listener: false })
const plain = express()
plain.get('/session', handler)
plain.get('/key', handler)
const plainServer = await listen(plain)

const accountId = randomUUID()
await new PostgresAccountStore({ client: clientA }).createAccount({
  accountId,
  username: 'bench',
  passwordHash: '$plain$x',
  now: new Date(),
})
const signIn = async () => (await a.local.establishSignIn({ accountId })) as SessionSignIn
const cookieOf = (session: SessionSignIn) => session.setCookie.split(';')[0] as string
const cookie = cookieOf(await signIn())
const key = (await a.keys.issue({ ownerId: 'bench-service' })).value

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number
}

/** Polls `url` on B until it answers 401; the time it did. Gives up (Infinity) after 10 s. */
async function refusedAt(url: string, headers: Record<string, string>, startedAt: number): Promise<number> {
  while (performance.now() - startedAt < 10_000) {
    const response = await fetch(url, { headers })
    await response.arrayBuffer()
    if (response.status === 401) return performance.now()
    if (response.status !== 200) throw new Error(`B answered ${response.status}`)
  }
  return Number.POSITIVE_INFINITY
}

interface Timings {
  /** From the start of the revocation on A until B refused. */
  readonly fromStart: number[]
  /** From the revocation's commit (A's call returned) until B refused. */
  readonly fromCommit: number[]
}

/** `count` revocations on A, each timed until B refuses; B's cache holds the credential beforehand. */
async function crossInstance(kind: 'session' | 'key', count: number): Promise<Timings> {
  const timings: Timings = { fromStart: [], fromCommit: [] }
  for (let index = 0; index < count; index += 1) {
    let revoke: () => Promise<unknown>
    let headers: Record<string, string>
    if (kind === 'session') {
      const session = await signIn()
      headers = { cookie: cookieOf(session) }
      revoke = () => a.local.revokeSession(accountId, session.handle)
    } else {
      const issued = await a.keys.issue({ ownerId: 'bench-service' })
      headers = { 'x-api-key': issued.value }
      revoke = () => a.keys.revoke(issued.keyId)
    }
    const url = `${b.server.url}/${kind}`
    const warm = await fetch(url, { headers })
    await warm.arrayBuffer()
    if (warm.status !== 200) throw new Error(`B refused a live ${kind}: ${warm.status}`)
    const startedAt = performance.now()
    const committed = revoke().then(() => performance.now())
    const refusedOnB = await refusedAt(url, headers, startedAt)
    const committedAt = await committed
    timings.fromStart.push(refusedOnB - startedAt)
    timings.fromCommit.push(Math.max(0, refusedOnB - committedAt))
  }
  timings.fromStart.sort((x, y) => x - y)
  timings.fromCommit.sort((x, y) => x - y)
  return timings
}

try {
  await compareHttp({
    id: 'session-listener-vs-get',
    title:
      'Session route (Postgres store, revocation listener; revoked elsewhere: refused within moments) vs a plain Express GET',
    baseline: { name: 'plain express', url: `${plainServer.url}/session` },
    candidate: { name: 'portcullis session + listener', url: `${a.server.url}/session`, headers: { cookie } },
    budget: 0.75,
  })
  await compareHttp({
    id: 'api-key-listener-vs-get',
    title:
      'API-key route (Postgres store, revocation listener, verified-lookup cache) vs a plain Express GET',
    baseline: { name: 'plain express', url: `${plainServer.url}/key` },
    candidate: {
      name: 'portcullis apiKey + listener',
      url: `${a.server.url}/key`,
      headers: { 'x-api-key': key },
    },
    budget: 0.8,
  })
  await compareHttp({
    id: 'session-strict-one-statement-vs-get',
    title:
      'Session route in strict mode (no listener, staleness 0: one SQL statement per request) vs a plain Express GET',
    baseline: { name: 'plain express', url: `${plainServer.url}/session` },
    candidate: { name: 'portcullis strict', url: `${strict.server.url}/session`, headers: { cookie } },
    budget: 0.45,
  })
  await compareHttp({
    title:
      'API-key route (Postgres store) without a listener (one SELECT per request) vs a plain Express GET (report only)',
    baseline: { name: 'plain express', url: `${plainServer.url}/key` },
    candidate: {
      name: 'portcullis apiKey, no listener',
      url: `${polled.server.url}/key`,
      headers: { 'x-api-key': key },
    },
  })
  // Both instances serve load (a load worker drives A and B in turns) while revocations are timed.
  const load = compareHttp({
    title: 'Instance B vs instance A under the cross-instance revocation test (report only: the load)',
    baseline: { name: 'instance A', url: `${a.server.url}/session`, headers: { cookie } },
    candidate: { name: 'instance B', url: `${b.server.url}/session`, headers: { cookie } },
    rounds: 1,
    durationSeconds: 30,
    connections: 4,
  })
  const sessions = await crossInstance('session', REVOCATIONS)
  const keys = await crossInstance('key', REVOCATIONS)
  await load
  const row = (what: string, timings: Timings) => [
    what,
    String(timings.fromStart.length),
    quantile(timings.fromCommit, 0.5).toFixed(1),
    quantile(timings.fromCommit, 0.99).toFixed(1),
    quantile(timings.fromStart, 0.5).toFixed(1),
    quantile(timings.fromStart, 0.99).toFixed(1),
    (timings.fromStart.at(-1) as number).toFixed(1),
  ]
  reportTable(
    'Cross-instance revocation: a revocation on instance A until instance B refuses (both under load, B polled back to back; budget 100 ms at p99)',
    [
      'Revoked on A',
      'Revocations',
      'after commit p50 (ms)',
      'after commit p99 (ms)',
      'from start p50 (ms)',
      'from start p99 (ms)',
      'from start max (ms)',
    ],
    [row('session (sign-out by handle)', sessions), row('API key (revoke)', keys)],
  )
  const missed = [sessions, keys].filter((timings) => quantile(timings.fromStart, 0.99) > 100)
  if (missed.length > 0) {
    console.log('  FAIL: cross-instance revocation above 100 ms at p99')
    process.exitCode = 1
  }
} finally {
  await Promise.all([a, b, strict, polled].map((each) => each.server.close()))
  await plainServer.close()
  await Promise.all([a, b].map((each) => each.notices?.close()))
  await Promise.all(clients.map((client) => client.close()))
  await database.close()
}
finish()
