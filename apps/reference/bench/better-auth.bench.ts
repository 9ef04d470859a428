// better-auth (1.3, its built-in API-key plugin and its session lookup) as a peer, on the same Postgres
// server, the same route and payload, in one paired run (report only). Revocation delay beside each
// session figure: better-auth reads the database on every request by default (revocation is immediate),
// or trusts its signed cookie cache for up to `maxAge` (5 minutes here, its documented example).
import { randomBytes } from 'node:crypto'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey } from '@portcullis/core/api-keys'
import { required } from '@portcullis/core/policy'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createSecurity } from '@portcullis/express'
import { createPostgresClient, migrate, PostgresApiKeyStore } from '@portcullis/postgres'
import { betterAuth } from 'better-auth'
import { getMigrations } from 'better-auth/db'
import { apiKey as betterAuthApiKey } from 'better-auth/plugins'
import express from 'express'
import pg from 'pg'

const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
const pool = new pg.Pool({ connectionString: database.connectionString, max: 10 })
const body = { items: [1, 2, 3] }
const servers: { close(): Promise<void> }[] = []

function authFor(cookieCache: boolean) {
  return betterAuth({
    database: pool,
    secret: randomBytes(32).toString('hex'),
    baseURL: 'http://127.0.0.1',
    emailAndPassword: { enabled: true },
    plugins: [betterAuthApiKey({ rateLimit: { enabled: false } })],
    ...(cookieCache ? { session: { cookieCache: { enabled: true, maxAge: 300 } } } : {}),
  })
}

try {
  await migrate(client)
  const auth = authFor(false)
  const cached = authFor(true)
  const { runMigrations } = await getMigrations(auth.options)
  await runMigrations()
  const password = randomBytes(12).toString('hex')
  const user = await auth.api.signUpEmail({ body: { email: 'bench@example.com', password, name: 'Bench' } })
  const betterKey = await auth.api.createApiKey({ body: { userId: user.user.id } })
  const sessionCookie = async (instance: ReturnType<typeof authFor>) => {
    const response = await instance.api.signInEmail({
      body: { email: 'bench@example.com', password },
      asResponse: true,
    })
    return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  }

  // Portcullis: the API-key mechanism over the Postgres store (the store read on every request).
  const keys = new ApiKeyService({
    store: new PostgresApiKeyStore({ client }),
    peppers: new ApiKeyPepperRing({ version: 'p1', secret: new Uint8Array(randomBytes(32)) }),
    prefix: 'bench',
  })
  const issued = await keys.issue({ ownerId: 'svc-bench' })
  const security = createSecurity({ mechanisms: [apiKey({ service: keys })] })
  const router = security.router()
  router.get('/items', { auth: required('api-key') }, (_request, response) => {
    response.json(body)
  })
  const portcullis = express()
  portcullis.use(security.middleware)
  portcullis.use(router)

  // better-auth: the same route behind its API-key verification and its session lookup.
  const peer = express()
  peer.get('/items', async (request, response) => {
    const verdict = await auth.api.verifyApiKey({ body: { key: request.header('x-api-key') ?? '' } })
    if (!verdict.valid) return void response.status(401).end()
    response.json(body)
  })
  for (const [path, instance] of [
    ['/session', auth],
    ['/session-cached', cached],
  ] as const) {
    peer.get(path, async (request, response) => {
      const found = await instance.api.getSession({
        headers: new Headers({ cookie: request.header('cookie') ?? '' }),
      })
      if (found === null) return void response.status(401).end()
      response.json(body)
    })
  }
  const plain = express()
  plain.get('/items', (_request, response) => {
    response.json(body)
  })
  const [portcullisServer, peerServer, plainServer] = await Promise.all([
    listen(portcullis),
    listen(peer),
    listen(plain),
  ])
  servers.push(portcullisServer, peerServer, plainServer)

  await compareHttp({
    title:
      "API-key route (Postgres store) vs better-auth's API-key plugin on the same Postgres (report only)",
    baseline: {
      name: 'better-auth apiKey',
      url: `${peerServer.url}/items`,
      headers: { 'x-api-key': betterKey.key },
    },
    candidate: {
      name: 'Portcullis apiKey',
      url: `${portcullisServer.url}/items`,
      headers: { 'x-api-key': issued.value },
    },
  })
  await compareHttp({
    title:
      'better-auth session lookup, database read per request (revocation: immediate) vs plain GET (report only)',
    baseline: { name: 'plain express', url: `${plainServer.url}/items` },
    candidate: {
      name: 'better-auth getSession',
      url: `${peerServer.url}/session`,
      headers: { cookie: await sessionCookie(auth) },
    },
  })
  await compareHttp({
    title:
      'better-auth session lookup with its signed cookie cache (revocation: up to 5 min) vs plain GET (report only)',
    baseline: { name: 'plain express', url: `${plainServer.url}/items` },
    candidate: {
      name: 'better-auth getSession, cookie cache',
      url: `${peerServer.url}/session-cached`,
      headers: { cookie: await sessionCookie(cached) },
    },
  })
  finish()
} finally {
  await Promise.all(servers.map((server) => server.close()))
  await pool.end()
  await client.close()
  await database.close()
}
