// DPoP-bound access tokens at a resource:
// - a route behind `oauthAccessTokens({ dpop })` with a bound token and an ES256 proof vs the same route
//   with a bearer token (budget >= 0.6x), and the same with an EdDSA (Ed25519) proof (report only). The
//   load generator repeats one request, so the proof's `jti` check goes to a store that accepts every use
//   here; its cost is measured on its own below;
// - what each part costs next to one bearer-token authentication (report only): the proof (parse, key
//   import, signature, thumbprint) with each algorithm, the signature verification alone against the whole
//   proof check, the `jti` check in the memory store, and a server nonce check.
import {
  createHash,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
  verify,
} from 'node:crypto'
import { compareHttp, compareOps, finish, listen } from '@portcullis/bench'
import type { CredentialSource } from '@portcullis/core/authentication'
import { type OAuthAccessTokensOptions, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { DPoPNonces } from '@portcullis/core/dpop'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { MemoryRateLimitStore, type RateLimitStore } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { createSecurity } from '@portcullis/express'
import express from 'express'
import { b64u, es256, ISSUER, issuerFixture, ORIGIN, RESOURCE } from './issuer-fixture.js'

// The issuer's JWKS on loopback, one account with one grant in the memory stores.
const issuer = await issuerFixture()
const { jwksUri, grants, notices, accessToken } = issuer

const client = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const { crv, kty, x, y } = client.publicKey.export({ format: 'jwk' })
const clientJwk = { crv, kty, x, y }
const jkt = createHash('sha256').update(JSON.stringify(clientJwk)).digest('base64url')
const edClient = generateKeyPairSync('ed25519')
const edExported = edClient.publicKey.export({ format: 'jwk' })
// RFC 7638 members in lexicographic order: crv, kty, x
const edJwk = { crv: edExported.crv, kty: edExported.kty, x: edExported.x }
const edJkt = createHash('sha256').update(JSON.stringify(edJwk)).digest('base64url')

const bearerToken = accessToken()
const boundToken = accessToken({ jkt })
const edBoundToken = accessToken({ jkt: edJkt })
const proofInput = (alg: string, key: object, token: string, method: string, url: string) =>
  `${b64u(JSON.stringify({ typ: 'dpop+jwt', alg, jwk: key }))}.${b64u(
    JSON.stringify({
      jti: randomUUID(),
      htm: method,
      htu: url,
      iat: Math.floor(Date.now() / 1000),
      ath: createHash('sha256').update(token).digest('base64url'),
    }),
  )}`
const eddsa = (input: string, key: KeyObject) => `${input}.${b64u(sign(null, Buffer.from(input), key))}`
const proof = (method: string, url: string) =>
  es256(proofInput('ES256', clientJwk, boundToken, method, url), client.privateKey)
const edProof = (method: string, url: string) =>
  eddsa(proofInput('EdDSA', edJwk, edBoundToken, method, url), edClient.privateKey)

/** Accepts every use: the HTTP load repeats one proof (the real check is measured separately). */
const acceptEveryUse: RateLimitStore = {
  consume: async ({ now: at }) => ({ allowed: true, count: 1, resetAt: at }),
  reset: async () => {},
}

const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
const mechanism = (options: Partial<OAuthAccessTokensOptions> = {}) =>
  oauthAccessTokens({ issuer: ISSUER, resource: RESOURCE, jwksUri, jwks, grants, notices, ...options })
const dpopOptions = { origins: [ORIGIN], maxAgeSeconds: 600 }

const handler: express.RequestHandler = (_request, response) => {
  response.json({ items: [1, 2, 3] })
}
const bearerMechanism = mechanism()
const uncachedBearer = mechanism({ cache: false })
const dpopMechanism = mechanism({ dpop: { ...dpopOptions, replay: acceptEveryUse } })
// One mechanism per app: every configured mechanism runs on every request.
function app(accessTokens: typeof bearerMechanism) {
  const security = createSecurity({ mechanisms: [accessTokens] })
  const router = security.router()
  router.get('/items', { auth: required('oauth') }, handler)
  const served = express()
  served.use(security.middleware)
  served.use(router)
  return served
}

const [bearerServer, boundServer, uncachedServer] = await Promise.all([
  listen(app(bearerMechanism)),
  listen(app(dpopMechanism)),
  listen(app(uncachedBearer)),
])
await jwks.warmup()
const source = (authorization: string, dpop?: string): CredentialSource => ({
  header: (name) => (name === 'authorization' ? authorization : name === 'dpop' ? dpop : undefined),
  cookie: () => undefined,
  method: 'GET',
  path: '/items',
})
const bearerSource = source(`Bearer ${bearerToken}`)
const boundProof = proof('GET', `${ORIGIN}/items`)
const boundSource = source(`DPoP ${boundToken}`, boundProof)
const edBoundProof = edProof('GET', `${ORIGIN}/items`)
const edBoundSource = source(`DPoP ${edBoundToken}`, edBoundProof)
/** The signature check of a proof alone, as node:crypto does it: what no proof check can skip. */
const signatureOnly = (compact: string, verify: (data: Buffer, signature: Buffer) => boolean) => {
  const dot = compact.lastIndexOf('.')
  const data = Buffer.from(compact.slice(0, dot), 'ascii')
  const signature = Buffer.from(compact.slice(dot + 1), 'base64url')
  return () => {
    if (!verify(data, signature)) throw new Error('the proof signature does not verify')
  }
}
const memoryStore = new MemoryRateLimitStore({ capacity: 1_000_000 })
const nonces = new DPoPNonces({ secret: randomBytes(32) })
const nonce = nonces.current(Date.now())
let counter = 0
try {
  await compareHttp({
    id: 'dpop-route',
    title: 'DPoP-bound route (ES256 proof verified per request) vs the same route with a bearer token',
    baseline: {
      name: 'bearer',
      url: `${bearerServer.url}/items`,
      headers: { authorization: `Bearer ${bearerToken}` },
    },
    candidate: {
      name: 'DPoP-bound',
      url: `${boundServer.url}/items`,
      headers: { authorization: `DPoP ${boundToken}`, dpop: proof('GET', `${ORIGIN}/items`) },
    },
    budget: 0.6,
  })
  await compareHttp({
    title: 'DPoP-bound route vs a bearer route verifying its token signature on every request (report only)',
    baseline: {
      name: 'bearer, cache: false',
      url: `${uncachedServer.url}/items`,
      headers: { authorization: `Bearer ${bearerToken}` },
    },
    candidate: {
      name: 'DPoP-bound',
      url: `${boundServer.url}/items`,
      headers: { authorization: `DPoP ${boundToken}`, dpop: proof('GET', `${ORIGIN}/items`) },
    },
  })
  await compareHttp({
    title:
      'DPoP-bound route with an EdDSA (Ed25519) proof vs the same route with a bearer token (report only)',
    baseline: {
      name: 'bearer',
      url: `${bearerServer.url}/items`,
      headers: { authorization: `Bearer ${bearerToken}` },
    },
    candidate: {
      name: 'DPoP-bound, EdDSA',
      url: `${boundServer.url}/items`,
      headers: { authorization: `DPoP ${edBoundToken}`, dpop: edProof('GET', `${ORIGIN}/items`) },
    },
  })
  await compareHttp({
    title: 'DPoP-bound route: an EdDSA (Ed25519) proof vs an ES256 proof (report only)',
    baseline: {
      name: 'DPoP-bound, ES256',
      url: `${boundServer.url}/items`,
      headers: { authorization: `DPoP ${boundToken}`, dpop: proof('GET', `${ORIGIN}/items`) },
    },
    candidate: {
      name: 'DPoP-bound, EdDSA',
      url: `${boundServer.url}/items`,
      headers: { authorization: `DPoP ${edBoundToken}`, dpop: edProof('GET', `${ORIGIN}/items`) },
    },
  })
  const bearerOp = { name: 'bearer authenticate', fn: () => bearerMechanism.authenticate(bearerSource) }
  await compareOps({
    title: 'The proof: parse, key import, ES256 signature, thumbprint (report only)',
    baseline: bearerOp,
    candidate: { name: 'DPoP authenticate', fn: () => dpopMechanism.authenticate(boundSource) },
  })
  await compareOps({
    title: 'The proof: parse, key import, EdDSA signature, thumbprint (report only)',
    baseline: bearerOp,
    candidate: { name: 'DPoP authenticate, EdDSA', fn: () => dpopMechanism.authenticate(edBoundSource) },
  })
  // the share of the whole check that is the signature: a ratio near 1 leaves nothing else to cut
  await compareOps({
    title: 'DPoP authenticate (ES256) vs the ES256 signature verification alone (report only)',
    baseline: {
      name: 'ES256 verify alone',
      fn: signatureOnly(boundProof, (data, signature) =>
        verify('sha256', data, { key: client.publicKey, dsaEncoding: 'ieee-p1363' }, signature),
      ),
    },
    candidate: { name: 'DPoP authenticate', fn: () => dpopMechanism.authenticate(boundSource) },
  })
  await compareOps({
    title: 'DPoP authenticate (EdDSA) vs the Ed25519 signature verification alone (report only)',
    baseline: {
      name: 'Ed25519 verify alone',
      fn: signatureOnly(edBoundProof, (data, signature) => verify(null, data, edClient.publicKey, signature)),
    },
    candidate: { name: 'DPoP authenticate, EdDSA', fn: () => dpopMechanism.authenticate(edBoundSource) },
  })
  await compareOps({
    title: 'The jti check in MemoryRateLimitStore, one new key per request (report only)',
    baseline: bearerOp,
    candidate: {
      name: 'jti consume',
      fn: () => {
        counter += 1
        return memoryStore.consume({
          key: `dpop-jti:${counter % 500_000}`,
          limit: 1,
          windowSeconds: 70,
          now: new Date(),
        })
      },
    },
  })
  await compareOps({
    title: 'A server nonce check (HMAC of the current and previous window) (report only)',
    baseline: bearerOp,
    candidate: { name: 'nonce check', fn: () => nonces.accepts(nonce, Date.now()) },
  })
} finally {
  await Promise.all([bearerServer.close(), boundServer.close(), uncachedServer.close()])
  await jwks.close()
  issuer.close()
}
finish()
