// Machine credentials on the request path (DESIGN.md section 5):
// - API-key route vs the same route unprotected (budget >= 0.9x);
// - workload-JWT route (ES256, JWKS cached, verified-token cache on) vs express-jwt + jwks-rsa verifying the
//   same token against the same loopback JWKS (budget >= 2.5x, DESIGN.md section 5); the same without the
//   token cache, and vs passport-jwt + jwks-rsa on the same token, are reported.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { type AuthenticationMechanism, authenticated, none } from '@portcullis/core/authentication'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { anonymous, required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import { createSecurity } from '@portcullis/express'
import express from 'express'
import { expressjwt } from 'express-jwt'
import jwksRsa from 'jwks-rsa'
import passport from 'passport'
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt'

const ISSUER = 'https://issuer.bench'
const AUDIENCE = 'https://api.bench'

// A loopback JWKS endpoint with one ES256 key generated for this run.
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
const input = `${b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'bench-1' }))}.${b64u(
  JSON.stringify({
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'svc-bench',
    client_id: 'bench',
    jti: 'bench-jti',
    scope: 'items:read',
    iat: now,
    exp: now + 3600,
  }),
)}`
const token = `${input}.${b64u(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`

const body = { items: [1, 2, 3] }
const handler: express.RequestHandler = (_request, response) => {
  response.json(body)
}

// Portcullis: one app, one router, the same handler behind different policies.
const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'bench',
})
const issued = await keys.issue({ ownerId: 'svc-bench' })
const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
// Accepts any x-trivial header: isolates what the API key mechanism itself costs on an authenticated route.
// Like every built-in mechanism it answers synchronously, so it costs nothing on requests without its header.
const trivial: AuthenticationMechanism = {
  name: 'trivial',
  default: false,
  securityScheme: { type: 'apiKey', in: 'header', name: 'x-trivial' },
  authenticate: (source) =>
    source.header('x-trivial') === undefined
      ? none()
      : authenticated(
          { id: 'svc-bench', kind: 'service' },
          { mechanism: 'trivial', credentialType: 'trivial' },
        ),
}
const security = createSecurity({
  mechanisms: [
    trivial,
    apiKey({ service: keys }),
    workloadJwt({ issuer: ISSUER, audience: AUDIENCE, jwksUri, jwks, cache: { maxEntries: 10_000 } }),
  ],
})
const router = security.router()
router.get('/open', { auth: anonymous() }, handler)
router.get('/api-key', { auth: required('api-key') }, handler)
router.get('/trivial', { auth: required('trivial') }, handler)
router.get('/jwt', { auth: required('workload-jwt') }, handler)
const uncachedSecurity = createSecurity({
  mechanisms: [workloadJwt({ issuer: ISSUER, audience: AUDIENCE, jwksUri, jwks })],
})
const uncachedRouter = uncachedSecurity.router()
uncachedRouter.get('/jwt', { auth: required('workload-jwt') }, handler)

const portcullis = express()
portcullis.use(security.middleware)
portcullis.use(router)
const uncached = express()
uncached.use(uncachedSecurity.middleware)
uncached.use(uncachedRouter)

// Plain Express, and the express-jwt + jwks-rsa reference on the same token and JWKS.
const plain = express()
plain.get('/open', handler)
plain.get(
  '/jwt',
  expressjwt({
    secret: jwksRsa.expressJwtSecret({ jwksUri, cache: true, rateLimit: true }) as never,
    algorithms: ['ES256'],
    issuer: ISSUER,
    audience: AUDIENCE,
  }),
  handler,
)

// passport-jwt + jwks-rsa, the other common pairing, on the same token and JWKS.
passport.use(
  new JwtStrategy(
    {
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: jwksRsa.passportJwtSecret({ jwksUri, cache: true, rateLimit: true }),
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['ES256'],
    },
    (payload: { sub?: string }, done: (error: unknown, user?: unknown) => void) => done(null, payload),
  ),
)
const passportApp = express()
passportApp.use(passport.initialize())
passportApp.get('/jwt', passport.authenticate('jwt', { session: false }), handler)

const [plainServer, portcullisServer, uncachedServer, passportServer] = await Promise.all([
  listen(plain),
  listen(portcullis),
  listen(uncached),
  listen(passportApp),
])
await jwks.warmup()
try {
  await compareHttp({
    id: 'api-key-route',
    title: 'API-key route vs the same route unprotected (Portcullis, auth: anonymous())',
    baseline: { name: 'unprotected', url: `${portcullisServer.url}/open` },
    candidate: {
      name: 'X-API-Key',
      url: `${portcullisServer.url}/api-key`,
      headers: { 'x-api-key': issued.value },
    },
    budget: 0.9,
  })
  await compareHttp({
    title: 'API-key route vs a route with a do-nothing mechanism (report only: the mechanism alone)',
    baseline: {
      name: 'trivial mechanism',
      url: `${portcullisServer.url}/trivial`,
      headers: { 'x-trivial': '1' },
    },
    candidate: {
      name: 'X-API-Key',
      url: `${portcullisServer.url}/api-key`,
      headers: { 'x-api-key': issued.value },
    },
  })
  await compareHttp({
    title: 'API-key route vs plain Express (report only)',
    baseline: { name: 'plain express', url: `${plainServer.url}/open` },
    candidate: {
      name: 'X-API-Key',
      url: `${portcullisServer.url}/api-key`,
      headers: { 'x-api-key': issued.value },
    },
  })
  const bearer = { authorization: `Bearer ${token}` }
  await compareHttp({
    id: 'workload-jwt-vs-express-jwt',
    title: 'workload-JWT route (ES256, JWKS cached, token cache) vs express-jwt + jwks-rsa',
    baseline: { name: 'express-jwt + jwks-rsa', url: `${plainServer.url}/jwt`, headers: bearer },
    candidate: { name: 'workloadJwt', url: `${portcullisServer.url}/jwt`, headers: bearer },
    budget: 2.5,
  })
  await compareHttp({
    title: 'workload-JWT route (token cache) vs passport-jwt + jwks-rsa (report only)',
    baseline: { name: 'passport-jwt + jwks-rsa', url: `${passportServer.url}/jwt`, headers: bearer },
    candidate: { name: 'workloadJwt', url: `${portcullisServer.url}/jwt`, headers: bearer },
  })
  await compareHttp({
    title: 'workload-JWT route without the token cache vs express-jwt + jwks-rsa (report only)',
    baseline: { name: 'express-jwt + jwks-rsa', url: `${plainServer.url}/jwt`, headers: bearer },
    candidate: { name: 'workloadJwt, no cache', url: `${uncachedServer.url}/jwt`, headers: bearer },
  })
  await compareHttp({
    title: 'workload-JWT route (token cache) vs the same route unprotected (report only)',
    baseline: { name: 'unprotected', url: `${portcullisServer.url}/open` },
    candidate: { name: 'workloadJwt', url: `${portcullisServer.url}/jwt`, headers: bearer },
  })
} finally {
  await Promise.all([
    plainServer.close(),
    portcullisServer.close(),
    uncachedServer.close(),
    passportServer.close(),
  ])
  await jwks.close()
  jwksServer.closeAllConnections()
  jwksServer.close()
}
finish()
