// The authorization server's access tokens at a resource (DESIGN.md section 5):
// - a route behind `oauthAccessTokens` (ES256 at+jwt, JWKS cached, signature cache on, the grant checked on
//   every request through the notice-evicted grant cache) vs the same route unprotected (budget >= 0.85x);
// - the same with the grant read from the store on every request (grantCache: false), report only;
// - the same with every signature verified (cache: false), report only.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  MemoryOAuthServerStore,
  type OAuthAccessTokensOptions,
  oauthAccessTokens,
} from '@portcullis/core/authorization-server'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { anonymous, required } from '@portcullis/core/policy'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { createSecurity } from '@portcullis/express'
import express from 'express'

const ISSUER = 'https://auth.bench'
const RESOURCE = 'https://app.bench/mcp'

// The issuer's JWKS on loopback, with one ES256 key generated for this run.
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'as-1', alg: 'ES256', use: 'sig' }
const jwksServer = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' })
  response.end(JSON.stringify({ keys: [jwk] }))
})
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`

// One account with one grant, in the memory stores.
const notices = new MemoryRevocationNotices()
const accounts = new MemoryAccountStore({ notices })
const grants = new MemoryOAuthServerStore({ accounts, notices })
const accountId = randomUUID()
await accounts.createAccount({ accountId, username: 'bench', passwordHash: '$bench$x', now: new Date() })
const grantId = `grant-${randomUUID()}`
await grants.upsert({
  model: 'Grant',
  id: grantId,
  payload: { accountId, clientId: 'bench-client', resources: { [RESOURCE]: 'mcp:read' } },
  expiresAt: new Date(Date.now() + 3_600_000),
})

const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const now = Math.floor(Date.now() / 1000)
const input = `${b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'as-1' }))}.${b64u(
  JSON.stringify({
    iss: ISSUER,
    aud: RESOURCE,
    sub: accountId,
    client_id: 'bench-client',
    jti: randomUUID(),
    scope: 'mcp:read',
    grant_id: grantId,
    iat: now,
    exp: now + 3600,
  }),
)}`
const token = `${input}.${b64u(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`
const bearer = { authorization: `Bearer ${token}` }

const body = { items: [1, 2, 3] }
const handler: express.RequestHandler = (_request, response) => {
  response.json(body)
}

const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
function app(options: Partial<OAuthAccessTokensOptions> = {}) {
  const security = createSecurity({
    mechanisms: [
      oauthAccessTokens({ issuer: ISSUER, resource: RESOURCE, jwksUri, jwks, grants, notices, ...options }),
    ],
  })
  const router = security.router()
  router.get('/open', { auth: anonymous() }, handler)
  router.get('/items', { auth: required('oauth') }, handler)
  const served = express()
  served.use(security.middleware)
  served.use(router)
  return served
}

const [defaults, strictGrants, noTokenCache] = await Promise.all([
  listen(app()),
  listen(app({ grantCache: false })),
  listen(app({ cache: false })),
])
await jwks.warmup()
try {
  await compareHttp({
    id: 'oauth-access-token-route',
    title: 'Authorization-server access-token route vs the same route unprotected',
    baseline: { name: 'unprotected', url: `${defaults.url}/open` },
    candidate: { name: 'oauthAccessTokens', url: `${defaults.url}/items`, headers: bearer },
    budget: 0.85,
  })
  await compareHttp({
    title:
      'Access-token route reading the grant on every request (grantCache: false) vs unprotected (report only)',
    baseline: { name: 'unprotected', url: `${strictGrants.url}/open` },
    candidate: { name: 'grant read per request', url: `${strictGrants.url}/items`, headers: bearer },
  })
  await compareHttp({
    title: 'Access-token route verifying every signature (cache: false) vs unprotected (report only)',
    baseline: { name: 'unprotected', url: `${noTokenCache.url}/open` },
    candidate: { name: 'ES256 per request', url: `${noTokenCache.url}/items`, headers: bearer },
  })
} finally {
  await Promise.all([defaults.close(), strictGrants.close(), noTokenCache.close()])
  await jwks.close()
  jwksServer.closeAllConnections()
  jwksServer.close()
}
finish()
