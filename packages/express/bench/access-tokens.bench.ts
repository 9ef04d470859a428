// The authorization server's access tokens at a resource (DESIGN.md section 5):
// - a route behind `oauthAccessTokens` (ES256 at+jwt, JWKS cached, signature cache on, the grant checked on
//   every request through the notice-evicted grant cache) vs the same route unprotected (budget >= 0.85x);
// - the same with the grant read from the store on every request (grantCache: false), report only;
// - the same with every signature verified (cache: false), report only.
import { compareHttp, finish, listen } from '@portcullis/bench'
import { type OAuthAccessTokensOptions, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { anonymous, required } from '@portcullis/core/policy'
import { createSecurity } from '@portcullis/express'
import express from 'express'
import { ISSUER, issuerFixture, RESOURCE } from './issuer-fixture.js'

// The issuer's JWKS on loopback, one account with one grant in the memory stores, one token.
const issuer = await issuerFixture()
const { jwksUri, grants, notices } = issuer
const token = issuer.accessToken()
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
  issuer.close()
}
finish()
