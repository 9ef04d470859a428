// How fast an ended grant reaches another instance (DESIGN.md section 5): two app instances, each with its
// own pool, `PostgresRevocationNotices` listener and `oauthAccessTokens` mechanism (grant cache on), share
// one grant status source. For each of REVOCATIONS grants, both instances have served its token from
// cache; the grant ends in the store, instance A publishes the `grant` notice through Postgres, and the
// time until instance B refuses the token is recorded (B is polled on every turn of its event loop).
// Budget: p95 <= 100 ms. This is a latency, not a ratio: it is printed as a table and fails the run when
// over budget.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { reportTable } from '@portcullis/bench'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { MemoryOAuthServerStore, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, migrate, PostgresRevocationNotices } from '@portcullis/postgres'

const REVOCATIONS = 200
const BUDGET_P95_MS = 100
const ISSUER = 'https://auth.bench'
const RESOURCE = 'https://app.bench/mcp'

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'as-1', alg: 'ES256', use: 'sig' }
const jwksServer = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' })
  response.end(JSON.stringify({ keys: [jwk] }))
})
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`
const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
function token(accountId: string, grantId: string): string {
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: ISSUER, aud: RESOURCE, sub: accountId, client_id: 'bench-client', jti: randomUUID() }
  const payload = { ...claims, scope: 'mcp:read', grant_id: grantId, iat: now, exp: now + 600 }
  const input = `${b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'as-1' }))}.${b64u(JSON.stringify(payload))}`
  return `${input}.${b64u(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`
}

// The shared status source; it sends no notices itself (instance A publishes them through Postgres).
const accounts = new MemoryAccountStore()
const grants = new MemoryOAuthServerStore({ accounts })

const database = await createTestDatabase()
const setup = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
const closing: { close(): Promise<void> }[] = [setup]
await migrate(setup)

async function instance(): Promise<{
  notices: PostgresRevocationNotices
  mechanism: AuthenticationMechanism
}> {
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 4 })
  const notices = new PostgresRevocationNotices({ client })
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  closing.push(client, notices, jwks)
  await notices.start()
  const mechanism = oauthAccessTokens({ issuer: ISSUER, resource: RESOURCE, jwksUri, jwks, grants, notices })
  return { notices, mechanism }
}

const kind = async (mechanism: AuthenticationMechanism, bearer: string) =>
  (
    await mechanism.authenticate({
      header: (name) => (name === 'authorization' ? `Bearer ${bearer}` : undefined),
      cookie: () => undefined,
      method: 'GET',
      path: '/mcp',
    })
  ).kind

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number

let failed = false
try {
  const a = await instance()
  const b = await instance()
  const elapsed: number[] = []
  for (let round = 0; round < REVOCATIONS; round += 1) {
    const accountId = randomUUID()
    await accounts.createAccount({ accountId, username: `b${round}`, passwordHash: '$b$x', now: new Date() })
    const grantId = `grant-${randomUUID()}`
    await grants.upsert({
      model: 'Grant',
      id: grantId,
      payload: { accountId, clientId: 'bench-client' },
      expiresAt: new Date(Date.now() + 3_600_000),
    })
    const bearer = token(accountId, grantId)
    for (const side of [a, b]) {
      if ((await kind(side.mechanism, bearer)) !== 'authenticated') throw new Error('token not accepted')
    }
    await grants.revokeGrant(grantId) // ended in the store; B still believes its cached status
    if ((await kind(b.mechanism, bearer)) !== 'authenticated') throw new Error('B did not answer from cache')
    const started = performance.now()
    await a.notices.publish({ kind: 'grant', grantId })
    for (;;) {
      if ((await kind(b.mechanism, bearer)) === 'invalid') break
      if (performance.now() - started > 5_000) throw new Error('the notice never reached instance B')
      await new Promise((resolve) => setImmediate(resolve))
    }
    elapsed.push(performance.now() - started)
  }
  const sorted = [...elapsed].sort((x, y) => x - y)
  const [p50, p95, max] = [
    percentile(sorted, 50),
    percentile(sorted, 95),
    sorted[sorted.length - 1] as number,
  ]
  failed = p95 > BUDGET_P95_MS
  reportTable(
    `Grant revocation reaching another instance through Postgres notices (${REVOCATIONS} revocations)`,
    ['p50', 'p95', 'max', 'budget', 'verdict'],
    [
      [
        `${p50.toFixed(1)} ms`,
        `${p95.toFixed(1)} ms`,
        `${max.toFixed(1)} ms`,
        `p95 <= ${BUDGET_P95_MS} ms`,
        failed ? '**missed**' : 'met',
      ],
    ],
  )
} finally {
  for (const each of closing.reverse()) await each.close()
  await database.close()
  jwksServer.closeAllConnections()
  jwksServer.close()
}
if (failed) {
  console.error(`grant revocation p95 over ${BUDGET_P95_MS} ms`)
  process.exitCode = 1
}
