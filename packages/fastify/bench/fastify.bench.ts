// The Fastify adapter on the request path (issue 26; DESIGN.md section 5), every figure against a plain
// Fastify GET of the same route and payload in the same run:
// - session route (Postgres store, default settings) >= 0.75x;
// - API-key route >= 0.9x the same route unprotected (as the Express budget; DESIGN.md section 5), and
//   workload-JWT route (ES256, JWKS cached, token cache), both also reported against a plain Fastify GET;
// - MCP resources/read of the marked route >= 0.7x a GET of the same route with the same plugin installed
//   (as the Express budget), also reported against a plain Fastify GET without Portcullis.
import { generateKeyPairSync, randomBytes, scrypt, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { compareHttp, finish } from '@portcullis/bench'
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
const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })

const plain = Fastify()
plain.get('/data', async () => body)

const secured = Fastify()
await secured.register(portcullis, {
  onRejection: (event) => {
    if (process.env.BENCH_DEBUG !== undefined) console.error(event)
  },
  mechanisms: [
    ...local.mechanisms,
    apiKey({ service: keys }),
    workloadJwt({ issuer: ISSUER, audience: AUDIENCE, jwksUri, jwks, cache: { maxEntries: 10_000 } }),
  ],
})
mcpEndpoint(secured, { auth: anonymous(), serverInfo: { name: 'bench', version: '1.0.0' } })
secured.get('/session', { config: { auth: required('session') } }, async () => body)
secured.get('/api-key', { config: { auth: required('api-key') } }, async () => body)
secured.get('/jwt', { config: { auth: required('workload-jwt') } }, async () => body)
secured.get('/config', { config: { auth: anonymous(), mcpResource: 'config' } }, async () => body)
secured.get('/open', { config: { auth: anonymous() } }, async () => body)

const plainUrl = await plain.listen({ port: 0, host: '127.0.0.1' })
const securedUrl = await secured.listen({ port: 0, host: '127.0.0.1' })
await jwks.warmup()
const baseline = { name: 'plain fastify', url: `${plainUrl}/data` }
try {
  await compareHttp({
    id: 'fastify-session-vs-get',
    title: 'Fastify session route (Postgres store, default settings) vs a plain Fastify GET',
    baseline,
    candidate: { name: 'portcullis session', url: `${securedUrl}/session`, headers: { cookie } },
    budget: 0.75,
  })
  const keyed = { name: 'X-API-Key', url: `${securedUrl}/api-key`, headers: { 'x-api-key': issued.value } }
  await compareHttp({
    id: 'fastify-api-key-route',
    title: 'Fastify API-key route vs the same route unprotected',
    baseline: { name: 'unprotected', url: `${securedUrl}/open` },
    candidate: keyed,
    budget: 0.9,
  })
  await compareHttp({
    title: 'Fastify API-key route vs a plain Fastify GET (report only)',
    baseline,
    candidate: keyed,
  })
  await compareHttp({
    title:
      'Fastify workload-JWT route (ES256, JWKS cached, token cache) vs a plain Fastify GET (report only)',
    baseline,
    candidate: {
      name: 'workloadJwt',
      url: `${securedUrl}/jwt`,
      headers: { authorization: `Bearer ${token}` },
    },
  })
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
      params: { uri: 'fastify://config' },
    }),
  } as const
  await compareHttp({
    id: 'fastify-mcp-read-vs-get',
    title:
      'Fastify MCP resources/read vs a GET of the same route and payload (the same plugin installed on both)',
    baseline: { name: 'portcullis GET', url: `${securedUrl}/config` },
    candidate: read,
    budget: 0.7,
  })
  await compareHttp({
    title:
      'Fastify MCP resources/read vs a plain Fastify GET of the same payload without Portcullis (report only)',
    baseline: { name: 'plain fastify GET', url: `${plainUrl}/data` },
    candidate: read,
  })
} finally {
  await Promise.all([plain.close(), secured.close(), jwks.close()])
  await client.close()
  await database.close()
  jwksServer.closeAllConnections()
  jwksServer.close()
}
finish()
