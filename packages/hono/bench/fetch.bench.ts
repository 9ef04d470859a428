// The fetch form (`createFetchSecurity`: Next.js route handlers, Bun, Deno) served on `@hono/node-server`
// (DESIGN.md section 5), in one run:
// - session (Postgres store, default settings), API-key and access-token routes against a plain fetch
//   handler setting the same headers itself (the fetch form's users have no header middleware) (>= 0.9x,
//   0.9x, 0.85x), and against a plain fetch handler sending none (report only);
// - MCP resources/read of the marked route >= 0.6x a GET of the same route through the fetch form, and
//   >= 2x the official SDK servers (1.x stateless server on its Web-standard transport, 2.x
//   createMcpHandler) as routes of a fetch form of their own, reading the same resource.
// - what each part of a request costs in-process (report only): the bare handler, Hono, the fetch form on
//   an anonymous route, each mechanism, and an MCP read against a GET of the same route.
// BENCH_ONLY=headers,session,api-key,access-token,mcp,sdk,costs runs only those parts (for profiling).
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
  reportPartCosts,
  statelessRead,
} from '@portcullis/bench'
import { apiKey } from '@portcullis/core/api-keys'
import { anonymous, required } from '@portcullis/core/policy'
import { securityHeaders } from '@portcullis/http/headers'
import { Hono } from 'hono'
import { createFetchSecurity } from '../src/fetch/index.js'
import { body, credentials, registerConfig, resourceText, serveFetch } from './fixture.js'

const signedIn = await credentials()
const JSON_TYPE = { 'content-type': 'application/json' }
const json = () => new Response(JSON.stringify(body), { headers: JSON_TYPE })

// A fetch handler with nothing, and one setting the headers Portcullis sends (and the no-store of an
// authenticated answer) itself: what a fetch-form user without Portcullis writes.
const sameHeaders: Record<string, string> = {
  ...Object.fromEntries(securityHeaders().map(([name, value]) => [name.toLowerCase(), value])),
  'cache-control': 'no-store',
  ...JSON_TYPE,
}
const plain = (): Response => json()
const withHeaders = (): Response => new Response(JSON.stringify(body), { headers: sameHeaders })

const form = createFetchSecurity({
  onRejection: (event) => {
    if (process.env.BENCH_DEBUG !== undefined) console.error(event)
  },
  mechanisms: [...signedIn.local.mechanisms, apiKey({ service: signedIn.keys })],
  mcp: {
    auth: anonymous(),
    allowedHosts: ['127.0.0.1'],
    serverInfo: { name: 'bench', version: '1.0.0' },
  },
})
form.route('GET', '/session', { auth: required('session') }, json)
form.route('GET', '/token', { auth: required('bearer') }, json)
form.route('GET', '/api-key', { auth: required('api-key') }, json)
form.route('GET', '/config', { auth: anonymous(), mcpResource: 'config' }, json)

// The official SDK servers as routes of a fetch form of their own (the same headers on their answers).
const modern = createMcpHandler(() => {
  const server = new ModernServer({ name: 'bench', version: '1.0.0' })
  registerConfig(server as never)
  return server
})
const sdkForm = createFetchSecurity({ mechanisms: [] })
sdkForm.route('POST', '/legacy/mcp', { auth: anonymous() }, async (request) => {
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  registerConfig(server)
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  await server.connect(transport)
  const answer = await transport.handleRequest(request)
  void transport.close()
  void server.close()
  return answer
})
sdkForm.route('POST', '/modern/mcp', { auth: anonymous() }, (request) => modern.fetch(request))

const servers = await Promise.all([plain, withHeaders, form.fetch, sdkForm.fetch].map(serveFetch))
const [plainServer, headersServer, formServer, sdkServer] = servers as [
  (typeof servers)[number],
  (typeof servers)[number],
  (typeof servers)[number],
  (typeof servers)[number],
]
const formUrl = formServer.url

/** The in-process costs: one reused GET per row (a GET has no body), a new request per MCP read. */
async function partCosts(): Promise<void> {
  const hono = new Hono()
  hono.get('/data', () => withHeaders())
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Request(`${formUrl}${path}`, { headers: { host: '127.0.0.1', ...headers } })
  const answered = async (answer: Response | Promise<Response>) => {
    const response = await answer
    if (response.status !== 200) throw new Error(`part cost: answered ${response.status}`)
  }
  const fetchOf = (request: Request) => () => answered(form.fetch(request))
  const plainRequest = get('/data')
  const mcpRead = legacyRead('', `${formUrl}/mcp`, 'hono://config')
  const postRead = () =>
    new Request(mcpRead.url, {
      method: 'POST',
      headers: { host: '127.0.0.1', ...mcpRead.headers },
      body: mcpRead.body ?? null,
    })
  await reportPartCosts('fetch form: what each part of a request costs (in-process, CPU per request)', [
    { name: 'fetch handler setting the headers', run: () => answered(withHeaders()) },
    { name: 'Hono app, the same handler', run: () => answered(hono.fetch(plainRequest)) },
    { name: 'fetch form, anonymous route', run: fetchOf(get('/config')) },
    { name: 'fetch form, session route', run: fetchOf(get('/session', { cookie: signedIn.cookie })) },
    { name: 'fetch form, API-key route', run: fetchOf(get('/api-key', { 'x-api-key': signedIn.apiKey })) },
    {
      name: 'fetch form, access-token route',
      run: fetchOf(get('/token', { authorization: `Bearer ${signedIn.accessToken}` })),
    },
    {
      name: 'fetch form, GET of the marked route (a new Request each)',
      run: () => answered(form.fetch(get('/config'))),
    },
    // what the POST request with a body costs to make (undici's body stream): part of the next row too
    {
      name: 'a new POST Request with the read body, to the bare handler',
      run: () => {
        postRead()
        return answered(withHeaders())
      },
    },
    {
      name: 'fetch form, MCP resources/read of it (a new POST Request each)',
      run: () => answered(form.fetch(postRead())),
    },
  ])
}

try {
  if (benchPartRuns('costs')) await partCosts()
  await compareWithHeaderMiddleware({
    adapter: 'fetch',
    plain: { name: 'plain fetch handler', url: `${plainServer.url}/data` },
    headerMiddleware: { name: 'fetch handler setting the same headers', url: `${headersServer.url}/data` },
    routes: {
      session: {
        name: 'portcullis session',
        url: `${formUrl}/session`,
        headers: { cookie: signedIn.cookie },
      },
      'api-key': { name: 'X-API-Key', url: `${formUrl}/api-key`, headers: { 'x-api-key': signedIn.apiKey } },
      'access-token': {
        name: 'portcullis access token',
        url: `${formUrl}/token`,
        headers: { authorization: `Bearer ${signedIn.accessToken}` },
      },
    },
  })
  const read = legacyRead('resources/read', `${formUrl}/mcp`, 'hono://config')
  await assertReadAnswers(read, resourceText)
  if (benchPartRuns('mcp')) {
    await compareHttp({
      id: 'fetch-mcp-read-vs-same-get',
      title: 'fetch form MCP resources/read vs a GET of the same route through the fetch form',
      baseline: { name: 'fetch form GET', url: `${formUrl}/config` },
      candidate: read,
      budget: 0.6,
    })
  }
  const modernRead = statelessRead('resources/read (2026-07-28)', `${formUrl}/mcp`, 'hono://config')
  const legacyBaseline = legacyRead(
    '1.x SDK stateless server',
    `${sdkServer.url}/legacy/mcp`,
    'hono://config',
  )
  const modernBaseline = statelessRead(
    '2.x SDK createMcpHandler',
    `${sdkServer.url}/modern/mcp`,
    'hono://config',
  )
  for (const target of [modernRead, legacyBaseline, modernBaseline]) {
    await assertReadAnswers(target, resourceText)
  }
  await compareWithSdkServers({
    adapter: 'fetch',
    sdk1: { baseline: legacyBaseline, candidate: read },
    sdk2: { baseline: modernBaseline, candidate: modernRead },
  })
} finally {
  await Promise.all(servers.map((server) => server.close()))
  await modern.close()
  await signedIn.close()
}
finish()
