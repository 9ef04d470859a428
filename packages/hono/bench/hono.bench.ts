// The Hono adapter on `@hono/node-server` (DESIGN.md section 5), every figure against a plain Hono GET of
// the same payload (no Portcullis) in the same run:
// - session route (Postgres store, default settings) >= 0.75x;
// - API-key route >= 0.8x; also reported against the same route unprotected (Portcullis installed);
// - MCP resources/read of the marked route (official JSON-RPC POST, read in-process through `app.fetch`)
//   >= 0.6x; also reported against a GET of the same route with Portcullis installed.
// Sending the header baseline alone costs a share of a GET this small (the bytes, Node's header checks, the
// client's parsing), so the session and API-key routes are also reported against a plain Hono GET that
// sends the same baseline headers itself.
import { randomBytes, scrypt } from 'node:crypto'
import { type ServerType, serve } from '@hono/node-server'
import { compareHttp, finish } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { anonymous, required } from '@portcullis/core/policy'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { securityHeaders } from '@portcullis/http/headers'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import { Hono } from 'hono'
import { createSecurity, mcpEndpoint } from '../src/index.js'

const ORIGIN = 'https://bench.example'
const body = {
  service: 'billing',
  features: Array.from({ length: 20 }, (_, index) => ({ id: `feature-${index}`, enabled: index % 3 !== 0 })),
}

// Sign-ins are made once, before measuring: a cheap real hasher keeps the setup short.
const hasher: PasswordHasher = {
  hash: async (password) =>
    new Promise((resolve, reject) =>
      scrypt(password, 'bench-salt', 32, { N: 1024 }, (error, key) =>
        error ? reject(error) : resolve(key.toString('base64url')),
      ),
    ),
  verify: async () => true,
  needsRehash: () => false,
}

const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
await migrate(client)
const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
const local = new LocalAccounts({
  profile: 'session',
  accounts: new PostgresAccountStore({ client }),
  sessions: new PostgresSessionStore({ client }),
  refreshTokens: new PostgresRefreshTokenStore({ client }),
  rateLimits: new PostgresRateLimitStore({ client }),
  hasher,
  registration: 'open',
  publicOrigin: ORIGIN,
  passwordScreen: commonPasswordScreen(),
  tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
})
const { accountId } = await local.register({ username: 'bench', password: 'correct horse battery staple' })
const signIn = await local.establishSignIn({ accountId })
const cookie = signIn.transport === 'session' ? (signIn.setCookie.split(';')[0] as string) : ''

const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'bench',
})
const issued = await keys.issue({ ownerId: 'svc-bench' })

const plain = new Hono()
plain.get('/data', (c) => c.json(body))
const baselineHeaders = Object.fromEntries(
  securityHeaders().map(([name, value]) => [name.toLowerCase(), value]),
)
plain.get('/headers', (c) => c.json(body, 200, { ...baselineHeaders, 'cache-control': 'no-store' }))

const security = createSecurity({
  onRejection: (event) => {
    if (process.env.BENCH_DEBUG !== undefined) console.error(event)
  },
  mechanisms: [...local.mechanisms, apiKey({ service: keys })],
})
const secured = new Hono()
secured.use(security.middleware)
secured.onError(security.onError)
mcpEndpoint(secured, security, { auth: anonymous(), serverInfo: { name: 'bench', version: '1.0.0' } })
secured.get('/session', security.route({ auth: required('session') }), (c) => c.json(body))
secured.get('/api-key', security.route({ auth: required('api-key') }), (c) => c.json(body))
secured.get('/config', security.route({ auth: anonymous(), mcpResource: 'config' }), (c) => c.json(body))
secured.get('/open', security.route({ auth: anonymous() }), (c) => c.json(body))
security.ready(secured)

/** Serves a Hono app with `@hono/node-server` on a free loopback port. */
function listen(app: Hono): Promise<{ url: string; server: ServerType }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, server }),
    )
  })
}
function close(server: ServerType): Promise<void> {
  ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
  return new Promise((resolve) => server.close(() => resolve()))
}

const plainServer = await listen(plain)
const securedServer = await listen(secured)
const plainUrl = plainServer.url
const securedUrl = securedServer.url
const baseline = { name: 'plain hono', url: `${plainUrl}/data` }
const withHeaders = { name: 'plain hono + baseline headers', url: `${plainUrl}/headers` }
// BENCH_ONLY=session|api-key|mcp runs one comparison (for profiling); unset runs them all.
const only = process.env.BENCH_ONLY
const runs = (name: string) => only === undefined || only === name
try {
  const session = { name: 'portcullis session', url: `${securedUrl}/session`, headers: { cookie } }
  if (runs('session')) {
    await compareHttp({
      id: 'hono-session-vs-get',
      title: 'Hono session route (Postgres store, default settings) vs a plain Hono GET',
      baseline,
      candidate: session,
      budget: 0.75,
    })
    await compareHttp({
      title: 'Hono session route vs a plain Hono GET sending the same baseline headers (report only)',
      baseline: withHeaders,
      candidate: session,
    })
  }
  const keyed = { name: 'X-API-Key', url: `${securedUrl}/api-key`, headers: { 'x-api-key': issued.value } }
  if (runs('api-key')) {
    await compareHttp({
      id: 'hono-api-key-vs-get',
      title: 'Hono API-key route vs a plain Hono GET',
      baseline,
      candidate: keyed,
      budget: 0.8,
    })
    await compareHttp({
      title: 'Hono API-key route vs a plain Hono GET sending the same baseline headers (report only)',
      baseline: withHeaders,
      candidate: keyed,
    })
    await compareHttp({
      title: 'Hono API-key route vs the same route unprotected (report only)',
      baseline: { name: 'unprotected', url: `${securedUrl}/open` },
      candidate: keyed,
    })
  }
  const read = {
    name: 'resources/read',
    url: `${securedUrl}/mcp`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/read',
      params: { uri: 'hono://config' },
    }),
  } as const
  if (runs('mcp')) {
    // a JSON-RPC error is a 200 too: the read must answer the route's payload before it is measured
    const answer = await fetch(read.url, { method: read.method, headers: read.headers, body: read.body })
    const text = (await answer.json()) as { result?: { contents?: { text?: string }[] } }
    if (text.result?.contents?.[0]?.text !== JSON.stringify(body)) {
      throw new Error(`resources/read does not answer the route's payload: ${JSON.stringify(text)}`)
    }
    await compareHttp({
      id: 'hono-mcp-read-vs-get',
      title: 'Hono MCP resources/read vs a plain Hono GET of the same route and payload',
      baseline,
      candidate: read,
      budget: 0.6,
    })
    await compareHttp({
      title:
        'Hono MCP resources/read vs a GET of the same route with Portcullis installed on both (report only)',
      baseline: { name: 'portcullis GET', url: `${securedUrl}/config` },
      candidate: read,
    })
  }
} finally {
  await Promise.all([close(plainServer.server), close(securedServer.server)])
  await client.close()
  await database.close()
}
finish()
