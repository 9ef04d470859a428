// Route policy overhead: the same Express route served plain vs behind the Portcullis adapter
// (security middleware + router with `auth: required()` and a trivial bearer mechanism), then with an
// authorization resolver and a tenant guard as well. Ratios are printed; no budget applies.
import { compareHttp, finish, listen } from '@portcullis/bench'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { authenticated, invalid, none } from '@portcullis/core/authentication'
import { requiresTenantRole } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { createSecurity } from '@portcullis/express'
import express from 'express'

const TOKEN = 'bench-token-0123456789abcdef'

const trivialBearer: AuthenticationMechanism = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer' },
  async authenticate(source) {
    const header = source.header('authorization')
    if (header === undefined) return none()
    if (header !== `Bearer ${TOKEN}`) return invalid('bearer: unknown token')
    return authenticated(
      { id: 'bench-user', kind: 'user' },
      { mechanism: 'bearer', credentialType: 'bearer' },
    )
  },
}

const body = { items: [1, 2, 3] }

const plain = express()
plain.get('/tenants/:tenantId/items', (_req, res) => {
  res.json(body)
})

const security = createSecurity({
  mechanisms: [trivialBearer],
  authorizationResolver: () => ({ tenants: { acme: ['viewer'] } }),
})
const router = security.router()
router.get('/tenants/:tenantId/items', { auth: required() }, (_req, res) => {
  res.json(body)
})
router.get(
  '/guarded/tenants/:tenantId/items',
  { auth: required(), guards: [requiresTenantRole({ roles: ['viewer'] })] },
  (_req, res) => {
    res.json(body)
  },
)
const secured = express()
secured.use(security.middleware)
secured.use(router)

const baselineServer = await listen(plain)
const candidateServer = await listen(secured)
const headers = { authorization: `Bearer ${TOKEN}` }
try {
  await compareHttp({
    title: 'route with auth: required() (trivial mechanism) vs plain Express',
    baseline: { name: 'plain express', url: `${baselineServer.url}/tenants/acme/items` },
    candidate: { name: 'portcullis required()', url: `${candidateServer.url}/tenants/acme/items`, headers },
  })
  await compareHttp({
    title: 'route with required() + resolver + requiresTenantRole vs plain Express',
    baseline: { name: 'plain express', url: `${baselineServer.url}/tenants/acme/items` },
    candidate: {
      name: 'portcullis required() + tenant guard',
      url: `${candidateServer.url}/guarded/tenants/acme/items`,
      headers,
    },
  })
} finally {
  await Promise.all([baselineServer.close(), candidateServer.close()])
}
finish()
