// Local accounts on the request path (DESIGN.md section 5), on one Postgres database:
// - session route (Postgres store, default settings) vs express-session + connect-pg-simple on the same
//   database and route (budget >= 3x), and vs a plain Express GET of the same route (>= 0.6x);
// - the same in strict mode (staleness 0: the store is read on every request) vs connect-pg-simple (>= 1.5x);
// - access-token route vs the same route unprotected (>= 0.85x);
// - a cheap route while 32 logins hash (argon2id, OWASP parameters) vs the same route idle (>= 0.5x), with
//   the event-loop delay p99 reported for both.
import { availableParallelism } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { compareHttp, finish, listen, recordComparison, reportTable } from '@portcullis/bench'
import { generateLocalSigningKey, LocalAccounts, LocalSigningKeyRing } from '@portcullis/core/local-accounts'
import { anonymous, required } from '@portcullis/core/policy'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createSecurity } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import connectPgSimple from 'connect-pg-simple'
import express from 'express'
import session from 'express-session'
import pg from 'pg'

const ORIGIN = 'https://bench.example'
const PASSWORD = 'correct horse battery staple'
const body = { items: [1, 2, 3] }
const handler: express.RequestHandler = (_request, response) => {
  response.json(body)
}

const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
await migrate(client)
const hasher = argon2idPasswordHasher()
const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
const stores = {
  accounts: new PostgresAccountStore({ client }),
  sessions: new PostgresSessionStore({ client }),
  refreshTokens: new PostgresRefreshTokenStore({ client }),
  rateLimits: new PostgresRateLimitStore({ client }),
}

function localAccounts(profile: 'session' | 'tokens', maxStalenessSeconds?: number) {
  return new LocalAccounts({
    profile,
    ...stores,
    hasher,
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    rateLimit: {
      perAccount: { limit: 1_000_000, windowSeconds: 60 },
      perAddress: { limit: 1_000_000, windowSeconds: 60 },
    },
    ...(maxStalenessSeconds === undefined ? {} : { revocation: { maxStalenessSeconds } }),
  })
}

/** A Portcullis app serving the handler at `/data` behind the profile's mechanism, and `/open` anonymous. */
function portcullisApp(local: LocalAccounts) {
  const security = createSecurity({ mechanisms: local.mechanisms })
  const router = security.router()
  router.get('/data', { auth: required() }, handler)
  router.get('/open', { auth: anonymous() }, handler)
  const app = express()
  app.use(security.middleware)
  app.use(router)
  return app
}

const sessions = localAccounts('session')
const strictSessions = localAccounts('session', 0)
const tokens = localAccounts('tokens')
const { accountId } = await sessions.register({ username: 'bench', password: PASSWORD })
const signIn = await sessions.establishSignIn({ accountId })
const cookie = signIn.transport === 'session' ? (signIn.setCookie.split(';')[0] as string) : ''
const pair = await tokens.establishSignIn({ accountId })
const accessToken = pair.transport === 'tokens' ? pair.access_token : ''

// express-session + connect-pg-simple, recommended settings, on the same database (its own table).
const peerPool = new pg.Pool({ connectionString: database.connectionString, max: 10 })
const PgStore = connectPgSimple(session)
const peer = express()
peer.use(
  session({
    store: new PgStore({ pool: peerPool, createTableIfMissing: true, pruneSessionInterval: false }),
    secret: 'bench-secret-bench-secret-bench-secret',
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', maxAge: 86_400_000 },
  }),
)
peer.post('/login', (request, response) => {
  ;(request.session as unknown as { user: string }).user = accountId
  response.json({ ok: true })
})
peer.get('/data', (request, response, next) => {
  if ((request.session as unknown as { user?: string }).user === undefined) response.status(401).end()
  else handler(request, response, next)
})

const plain = express()
plain.get('/data', handler)

const [sessionServer, strictServer, tokenServer, peerServer, plainServer] = await Promise.all([
  listen(portcullisApp(sessions)),
  listen(portcullisApp(strictSessions)),
  listen(portcullisApp(tokens)),
  listen(peer),
  listen(plain),
])
const peerLogin = await fetch(`${peerServer.url}/login`, { method: 'POST' })
const peerCookie = (peerLogin.headers.get('set-cookie') ?? '').split(';')[0] as string

/** Keeps `concurrency` sign-ins in flight (real argon2id verification through the bounded hasher). */
function loginLoad(local: LocalAccounts, concurrency: number) {
  let running = true
  let completed = 0
  const worker = async () => {
    while (running) {
      await local.login({ username: 'bench', password: PASSWORD }, { transport: 'session' })
      completed += 1
    }
  }
  const workers = Array.from({ length: concurrency }, worker)
  return {
    get completed() {
      return completed
    },
    async stop() {
      running = false
      await Promise.all(workers)
    },
  }
}

/**
 * Idle vs "32 logins hashing", alternating whole phases (the hashing is fully drained between phases, so
 * it never leaks into an idle measurement): the median of the paired ratios, and the loop delay p99.
 */
async function underLoginLoad(rounds: number): Promise<void> {
  const cheap = { name: 'cheap route', url: `${sessionServer.url}/open` }
  const rate = async (title: string) => {
    const result = await compareHttp({
      title,
      baseline: cheap,
      candidate: cheap,
      rounds: 1,
      durationSeconds: 2,
      warmupSeconds: 0.3,
    })
    return (result.baseline.perSecond + result.candidate.perSecond) / 2
  }
  const ratios: number[] = []
  const idleP99: number[] = []
  const busyP99: number[] = []
  let busyMax = 0
  const idleRates: number[] = []
  const busyRates: number[] = []
  let logins = 0
  let busyMs = 0
  for (let round = 0; round < rounds; round += 1) {
    const idleDelay = monitorEventLoopDelay({ resolution: 5 })
    idleDelay.enable()
    const idle = await rate(`  idle phase ${round + 1}`)
    idleDelay.disable()
    idleP99.push(idleDelay.percentile(99))
    const load = loginLoad(sessions, 32)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const busyDelay = monitorEventLoopDelay({ resolution: 5 })
    busyDelay.enable()
    const started = performance.now()
    const busy = await rate(`  32 logins hashing, phase ${round + 1}`)
    busyMs += performance.now() - started
    busyDelay.disable()
    busyP99.push(busyDelay.percentile(99))
    busyMax = Math.max(busyMax, busyDelay.max)
    await load.stop()
    logins += load.completed
    ratios.push(busy / idle)
    idleRates.push(idle)
    busyRates.push(busy)
  }
  const sorted = [...ratios].sort((a, b) => a - b)
  const ratio = sorted[Math.floor(sorted.length / 2)] as number
  const ms = (value: number) => `${(value / 1e6).toFixed(1)} ms`
  const middle = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
  recordComparison({
    id: 'hashing-starvation',
    title: 'cheap route while 32 logins hash vs the same route idle (whole alternating phases)',
    baseline: { name: 'idle', perSecond: middle(idleRates) },
    candidate: { name: '32 logins hashing', perSecond: middle(busyRates) },
    ratio,
    rounds: ratios,
    budget: 0.5,
  })
  reportTable(
    'Event-loop delay p99 while 32 logins hash (median of phases)',
    ['Phase', 'Loop delay p99 (ms)'],
    [
      ['idle', (middle(idleP99) / 1e6).toFixed(1)],
      ['32 logins hashing', (middle(busyP99) / 1e6).toFixed(1)],
    ],
  )
  console.log(
    `  event-loop delay p99 (median of phases): idle ${ms(middle(idleP99))}, while hashing ${ms(middle(busyP99))} (worst sample ${ms(busyMax)}); ${((logins * 1000) / busyMs).toFixed(0)} logins/s, ${availableParallelism()} cores (hashing concurrency: half of them)`,
  )
}

try {
  await compareHttp({
    id: 'session-vs-connect-pg-simple',
    title:
      'Session route (Postgres store, default settings; revocation: at once on the revoking instance, within 5 s on others) vs express-session + connect-pg-simple (revocation: immediate)',
    baseline: { name: 'connect-pg-simple', url: `${peerServer.url}/data`, headers: { cookie: peerCookie } },
    candidate: { name: 'portcullis session', url: `${sessionServer.url}/data`, headers: { cookie } },
    budget: 3,
  })
  await compareHttp({
    id: 'session-vs-get',
    title: 'Session route (default settings) vs a plain Express GET of the same route',
    baseline: { name: 'plain express', url: `${plainServer.url}/data` },
    candidate: { name: 'portcullis session', url: `${sessionServer.url}/data`, headers: { cookie } },
    budget: 0.6,
  })
  await compareHttp({
    id: 'session-strict-vs-connect-pg-simple',
    title:
      'Session route in strict mode (staleness 0; revocation: immediate) vs express-session + connect-pg-simple (revocation: immediate)',
    baseline: { name: 'connect-pg-simple', url: `${peerServer.url}/data`, headers: { cookie: peerCookie } },
    candidate: { name: 'portcullis strict', url: `${strictServer.url}/data`, headers: { cookie } },
    budget: 1.5,
  })
  await compareHttp({
    title: 'connect-pg-simple vs a plain Express GET (report only: the peer figure of DESIGN.md)',
    baseline: { name: 'plain express', url: `${plainServer.url}/data` },
    candidate: { name: 'connect-pg-simple', url: `${peerServer.url}/data`, headers: { cookie: peerCookie } },
  })
  await compareHttp({
    id: 'access-token-route',
    title: 'Access-token route vs the same route unprotected',
    baseline: { name: 'unprotected', url: `${tokenServer.url}/open` },
    candidate: {
      name: 'local access token',
      url: `${tokenServer.url}/data`,
      headers: { authorization: `Bearer ${accessToken}` },
    },
    budget: 0.85,
  })
  await underLoginLoad(5)
} finally {
  await Promise.all(
    [sessionServer, strictServer, tokenServer, peerServer, plainServer].map((server) => server.close()),
  )
  await peerPool.end()
  await client.close()
  await database.close()
}
finish()
