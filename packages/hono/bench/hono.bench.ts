// The Hono adapter on `@hono/node-server` (DESIGN.md section 5), in one run:
// - session (Postgres store, default settings), API-key and access-token routes against Hono with
//   `hono/secure-headers` configured to send the same headers (>= 0.9x, 0.9x, 0.85x), and against a plain
//   Hono GET of the same payload (session >= 0.75x, API key >= 0.8x, access token report only);
// - MCP resources/read of the marked route (read in-process through `app.fetch`) >= 0.6x a GET of the same
//   route (Portcullis on both) and >= 0.6x a plain Hono GET, and >= 2x the official SDK servers (1.x
//   stateless server on its Web-standard transport, 2.x createMcpHandler) reading the same resource on Hono
//   with the same middleware installed.
// BENCH_ONLY=headers,session,api-key,access-token,mcp,sdk runs only those parts (for profiling).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { createMcpHandler, McpServer as ModernServer } from '@modelcontextprotocol/server'
import {
  assertReadAnswers,
  benchPartRuns,
  compareHttp,
  compareWithHeaderMiddleware,
  compareWithSdkServers,
  finish,
  legacyRead,
  SECURE_HEADERS_SAME_HEADERS,
  statelessRead,
} from '@portcullis/bench'
import { apiKey } from '@portcullis/core/api-keys'
import { anonymous, required } from '@portcullis/core/policy'
import { securityHeaders } from '@portcullis/http/headers'
import { Hono } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import { createSecurity, mcpEndpoint } from '../src/index.js'
import { body, credentials, registerConfig, resourceText, serveFetch } from './fixture.js'

const signedIn = await credentials()

const plain = new Hono()
plain.get('/data', (c) => c.json(body))
// the baseline headers sent by the handler itself: what the bytes alone cost
const baselineHeaders = Object.fromEntries(
  securityHeaders().map(([name, value]) => [name.toLowerCase(), value]),
)
plain.get('/headers', (c) => c.json(body, 200, { ...baselineHeaders, 'cache-control': 'no-store' }))

// What a Hono user runs: hono/secure-headers sending the same headers as Portcullis (and the no-store an
// authenticated answer carries); the bench refuses to measure if the two sides' headers differ.
const secure = new Hono()
secure.use(secureHeaders(SECURE_HEADERS_SAME_HEADERS))
secure.get('/data', (c) => c.json(body, 200, { 'cache-control': 'no-store' }))

const security = createSecurity({
  onRejection: (event) => {
    if (process.env.BENCH_DEBUG !== undefined) console.error(event)
  },
  mechanisms: [...signedIn.local.mechanisms, apiKey({ service: signedIn.keys })],
})
const secured = new Hono()
secured.use(security.middleware)
secured.onError(security.onError)
mcpEndpoint(secured, security, { auth: anonymous(), serverInfo: { name: 'bench', version: '1.0.0' } })
secured.get('/session', security.route({ auth: required('session') }), (c) => c.json(body))
secured.get('/token', security.route({ auth: required('bearer') }), (c) => c.json(body))
secured.get('/api-key', security.route({ auth: required('api-key') }), (c) => c.json(body))
secured.get('/config', security.route({ auth: anonymous(), mcpResource: 'config' }), (c) => c.json(body))
secured.get('/open', security.route({ auth: anonymous() }), (c) => c.json(body))
security.ready(secured)

// The official SDK servers, each on Hono with the same middleware installed, reading the same resource.
const sdkSecurity = createSecurity({ mechanisms: [] })
const legacySdk = new Hono()
legacySdk.use(sdkSecurity.middleware)
legacySdk.post('/mcp', async (c) => {
  // the 1.x SDK's documented stateless pattern on its Web-standard transport: a fresh server and
  // transport per request, JSON answers
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  registerConfig(server)
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  await server.connect(transport)
  const answer = await transport.handleRequest(c.req.raw)
  void transport.close()
  void server.close()
  return answer
})
const modern = createMcpHandler(() => {
  const server = new ModernServer({ name: 'bench', version: '1.0.0' })
  registerConfig(server as never)
  return server
})
const modernSdk = new Hono()
modernSdk.use(sdkSecurity.middleware)
modernSdk.post('/mcp', (c) => modern.fetch(c.req.raw))

const servers = await Promise.all(
  [plain, secure, secured, legacySdk, modernSdk].map((app) => serveFetch(app.fetch)),
)
const [plainServer, secureServer, securedServer, legacyServer, modernServer] = servers as [
  (typeof servers)[number],
  (typeof servers)[number],
  (typeof servers)[number],
  (typeof servers)[number],
  (typeof servers)[number],
]
const securedUrl = securedServer.url
const baseline = { name: 'plain hono', url: `${plainServer.url}/data` }
try {
  const session = {
    name: 'portcullis session',
    url: `${securedUrl}/session`,
    headers: { cookie: signedIn.cookie },
  }
  const keyed = { name: 'X-API-Key', url: `${securedUrl}/api-key`, headers: { 'x-api-key': signedIn.apiKey } }
  await compareWithHeaderMiddleware({
    adapter: 'hono',
    plain: baseline,
    headerMiddleware: { name: 'hono + hono/secure-headers', url: `${secureServer.url}/data` },
    routes: {
      session,
      'api-key': keyed,
      'access-token': {
        name: 'portcullis access token',
        url: `${securedUrl}/token`,
        headers: { authorization: `Bearer ${signedIn.accessToken}` },
      },
    },
    plainBudgets: { session: 'hono-session-vs-get', 'api-key': 'hono-api-key-vs-get' },
  })
  if (benchPartRuns('headers')) {
    await compareHttp({
      title: 'Hono session route vs a plain Hono GET sending the same baseline headers (report only)',
      baseline: { name: 'plain hono + baseline headers', url: `${plainServer.url}/headers` },
      candidate: session,
    })
  }
  if (benchPartRuns('api-key')) {
    await compareHttp({
      title: 'Hono API-key route vs the same route unprotected (report only)',
      baseline: { name: 'unprotected', url: `${securedUrl}/open` },
      candidate: keyed,
    })
  }
  const read = legacyRead('resources/read', `${securedUrl}/mcp`, 'hono://config')
  await assertReadAnswers(read, resourceText)
  if (benchPartRuns('mcp')) {
    await compareHttp({
      id: 'hono-mcp-read-vs-same-get',
      title: 'Hono MCP resources/read vs a GET of the same route (Portcullis installed on both)',
      baseline: { name: 'portcullis GET', url: `${securedUrl}/config` },
      candidate: read,
      budget: 0.6,
    })
    await compareHttp({
      id: 'hono-mcp-read-vs-get',
      title: 'Hono MCP resources/read vs a plain Hono GET of the same route and payload',
      baseline,
      candidate: read,
      budget: 0.6,
    })
  }
  const modernRead = statelessRead('resources/read (2026-07-28)', `${securedUrl}/mcp`, 'hono://config')
  const legacyBaseline = legacyRead('1.x SDK stateless server', `${legacyServer.url}/mcp`, 'hono://config')
  const modernBaseline = statelessRead('2.x SDK createMcpHandler', `${modernServer.url}/mcp`, 'hono://config')
  for (const target of [modernRead, legacyBaseline, modernBaseline]) {
    await assertReadAnswers(target, resourceText)
  }
  await compareWithSdkServers({
    adapter: 'hono',
    sdk1: { baseline: legacyBaseline, candidate: read },
    sdk2: { baseline: modernBaseline, candidate: modernRead },
  })
} finally {
  await Promise.all(servers.map((server) => server.close()))
  await modern.close()
  await signedIn.close()
}
finish()
