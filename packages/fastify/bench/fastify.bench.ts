// The Fastify adapter on the request path (DESIGN.md section 5), in one run:
// - session (Postgres store, default settings), API-key and access-token routes against Fastify with
//   `@fastify/helmet` configured to send the same headers (>= 0.9x, 0.9x, 0.85x), and against a plain
//   Fastify GET (session >= 0.75x; the others report only);
// - API-key route >= 0.9x the same route unprotected (as the Express budget), workload-JWT route reported;
// - MCP resources/read of the marked route >= 0.7x a GET of the same route with the same plugin installed,
//   and >= 2x the official SDK servers (1.x stateless server, 2.x createMcpHandler) reading the same
//   resource on Fastify with the same plugin installed.
import { generateKeyPairSync, randomBytes, scrypt, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import helmet from '@fastify/helmet'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpHandler, McpServer as ModernServer } from '@modelcontextprotocol/server'
import {
  assertReadAnswers,
  benchPartRuns,
  compareHttp,
  compareWithHeaderMiddleware,
  compareWithSdkServers,
  finish,
  HELMET_SAME_HEADERS,
  legacyRead,
  statelessRead,
} from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { anonymous, required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { mcpEndpoint, portcullis } from '@portcullis/fastify'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import Fastify from 'fastify'

const ORIGIN = 'https://bench.example'
const ISSUER = 'https://issuer.bench'
const AUDIENCE = 'https://api.bench'
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

// A loopback JWKS endpoint with one ES256 key generated for this run, and one token.
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'bench-1', alg: 'ES256', use: 'sig' }
const jwksServer = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' })
  response.end(JSON.stringify({ keys: [jwk] }))
})
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`
const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const now = Math.floor(Date.now() / 1000)
const claims = {
  iss: ISSUER,
  aud: AUDIENCE,
  sub: 'svc-bench',
  client_id: 'bench',
  jti: 'bench-jti',
  scope: 'items:read',
  iat: now,
  exp: now + 3600,
}
const input = `${b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'bench-1' }))}.${b64u(JSON.stringify(claims))}`
const token = `${input}.${b64u(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`

const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
await migrate(client)
const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
const local = new LocalAccounts({
  profile: 'hybrid',
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
const signIn = await local.establishSignIn({ accountId, transport: 'session' })
const cookie = signIn.transport === 'session' ? (signIn.setCookie.split(';')[0] as string) : ''
const pair = await local.establishSignIn({ accountId, transport: 'tokens' })
const accessToken = pair.transport === 'tokens' ? pair.access_token : ''

const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'bench',
})
const issued = await keys.issue({ ownerId: 'svc-bench' })
const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })

const plain = Fastify()
plain.get('/data', async () => body)

// What a Fastify user runs: @fastify/helmet sending the same headers as Portcullis (and the no-store an
// authenticated answer carries); the bench refuses to measure if the two sides' headers differ.
const helmeted = Fastify()
await helmeted.register(helmet, HELMET_SAME_HEADERS as never)
helmeted.get('/data', async (_request, reply) => {
  reply.header('cache-control', 'no-store')
  return body
})

const secured = Fastify()
await secured.register(portcullis, {
  onRejection: (event) => {
    if (process.env.BENCH_DEBUG !== undefined) console.error(event)
  },
  mechanisms: [...local.mechanisms, apiKey({ service: keys })],
})
// the workload-JWT route on an app of its own: its mechanism and the local access tokens would both read
// the same `Authorization: Bearer` header (a token one of them cannot verify is refused, never skipped)
const jwtApp = Fastify()
await jwtApp.register(portcullis, {
  mechanisms: [
    workloadJwt({ issuer: ISSUER, audience: AUDIENCE, jwksUri, jwks, cache: { maxEntries: 10_000 } }),
  ],
})
jwtApp.get('/jwt', { config: { auth: required('workload-jwt') } }, async () => body)
mcpEndpoint(secured, { auth: anonymous(), serverInfo: { name: 'bench', version: '1.0.0' } })
secured.get('/session', { config: { auth: required('session') } }, async () => body)
secured.get('/token', { config: { auth: required('bearer') } }, async () => body)
secured.get('/api-key', { config: { auth: required('api-key') } }, async () => body)
secured.get('/config', { config: { auth: anonymous(), mcpResource: 'config' } }, async () => body)
secured.get('/open', { config: { auth: anonymous() } }, async () => body)

// The official SDK servers, each on Fastify with the same plugin installed, reading the same resource.
const resourceText = JSON.stringify(body)
const registerConfig = (server: { registerResource: McpServer['registerResource'] }): void => {
  server.registerResource('config', 'fastify://config', { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: resourceText }],
  }))
}
const legacySdk = Fastify()
await legacySdk.register(portcullis, { mechanisms: [] })
legacySdk.post('/mcp', { config: { auth: anonymous() } }, async (request, reply) => {
  // the 1.x SDK's documented stateless pattern: a fresh server and transport per request, JSON answers
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  registerConfig(server)
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
  reply.raw.on('close', () => {
    void transport.close()
    void server.close()
  })
  reply.hijack()
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value as string)
  }
  await server.connect(transport)
  await transport.handleRequest(request.raw, reply.raw, request.body)
})
const modern = createMcpHandler(() => {
  const server = new ModernServer({ name: 'bench', version: '1.0.0' })
  registerConfig(server as never)
  return server
})
const modernSdk = Fastify()
await modernSdk.register(portcullis, { mechanisms: [] })
modernSdk.removeAllContentTypeParsers()
modernSdk.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, raw, done) => done(null, raw))
modernSdk.post('/mcp', { config: { auth: anonymous() } }, async (request, reply) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value)
  }
  const answer = await modern.fetch(
    new Request(`http://${request.headers.host}${request.url}`, {
      method: 'POST',
      headers,
      body: request.body as Buffer,
    }),
  )
  reply.code(answer.status)
  answer.headers.forEach((value, name) => {
    reply.header(name, value)
  })
  return reply.send(Buffer.from(await answer.arrayBuffer()))
})

const plainUrl = await plain.listen({ port: 0, host: '127.0.0.1' })
const helmetUrl = await helmeted.listen({ port: 0, host: '127.0.0.1' })
const securedUrl = await secured.listen({ port: 0, host: '127.0.0.1' })
const jwtUrl = await jwtApp.listen({ port: 0, host: '127.0.0.1' })
const legacyUrl = await legacySdk.listen({ port: 0, host: '127.0.0.1' })
const modernUrl = await modernSdk.listen({ port: 0, host: '127.0.0.1' })
await jwks.warmup()
const baseline = { name: 'plain fastify', url: `${plainUrl}/data` }
try {
  const keyed = { name: 'X-API-Key', url: `${securedUrl}/api-key`, headers: { 'x-api-key': issued.value } }
  await compareWithHeaderMiddleware({
    adapter: 'fastify',
    plain: baseline,
    headerMiddleware: { name: 'fastify + @fastify/helmet', url: `${helmetUrl}/data` },
    routes: {
      session: { name: 'portcullis session', url: `${securedUrl}/session`, headers: { cookie } },
      'api-key': keyed,
      'access-token': {
        name: 'portcullis access token',
        url: `${securedUrl}/token`,
        headers: { authorization: `Bearer ${accessToken}` },
      },
    },
    plainBudgets: { session: 'fastify-session-vs-get' },
  })
  if (benchPartRuns('api-key')) {
    await compareHttp({
      id: 'fastify-api-key-route',
      title: 'Fastify API-key route vs the same route unprotected',
      baseline: { name: 'unprotected', url: `${securedUrl}/open` },
      candidate: keyed,
      budget: 0.9,
    })
  }
  if (benchPartRuns('jwt'))
    await compareHttp({
      title:
        'Fastify workload-JWT route (ES256, JWKS cached, token cache) vs a plain Fastify GET (report only)',
      baseline,
      candidate: {
        name: 'workloadJwt',
        url: `${jwtUrl}/jwt`,
        headers: { authorization: `Bearer ${token}` },
      },
    })
  const read = legacyRead('resources/read', `${securedUrl}/mcp`, 'fastify://config')
  await assertReadAnswers(read, resourceText)
  if (benchPartRuns('mcp'))
    await compareHttp({
      id: 'fastify-mcp-read-vs-get',
      title:
        'Fastify MCP resources/read vs a GET of the same route and payload (the same plugin installed on both)',
      baseline: { name: 'portcullis GET', url: `${securedUrl}/config` },
      candidate: read,
      budget: 0.7,
    })
  const modernRead = statelessRead('resources/read (2026-07-28)', `${securedUrl}/mcp`, 'fastify://config')
  const legacyBaseline = legacyRead('1.x SDK stateless server', `${legacyUrl}/mcp`, 'fastify://config')
  const modernBaseline = statelessRead('2.x SDK createMcpHandler', `${modernUrl}/mcp`, 'fastify://config')
  for (const target of [modernRead, legacyBaseline, modernBaseline]) {
    await assertReadAnswers(target, resourceText)
  }
  await compareWithSdkServers({
    adapter: 'fastify',
    sdk1: { baseline: legacyBaseline, candidate: read },
    sdk2: { baseline: modernBaseline, candidate: modernRead },
  })
} finally {
  await Promise.all([
    plain.close(),
    helmeted.close(),
    secured.close(),
    jwtApp.close(),
    legacySdk.close(),
    modernSdk.close(),
    jwks.close(),
  ])
  await modern.close()
  await client.close()
  await database.close()
  jwksServer.closeAllConnections()
  jwksServer.close()
}
finish()
