// Workload JWTs: non-user services authenticate with `Authorization: Bearer <JWT>` from a pinned issuer,
// audience and JWKS URL. Token scopes become credential restrictions: they narrow, never widen.
import {
  CachedJWKSProvider,
  githubActionsOidc,
  kubernetesServiceAccount,
  required,
  requiresScope,
  workloadJwt,
} from '@portcullis/core'
import { createSecurity } from '@portcullis/express'
import express from 'express'

const jwks = new CachedJWKSProvider()

// RFC 9068 access tokens (`typ: at+jwt`, client_id, jti and scope required) from your authorization server.
// #region workload-jwts
const partners = workloadJwt({
  name: 'partners',
  issuer: 'https://auth.example.com',
  audience: 'https://api.example.com',
  jwksUri: 'https://auth.example.com/.well-known/jwks.json',
  jwks,
  algorithms: ['ES256', 'EdDSA'],
  // Several bearer mechanisms read Authorization below: each leaves the others' tokens alone.
  shareBearerHeader: true,
  // Optional: successes only, keyed by a hash of the token, never past its exp.
  cache: { maxEntries: 10_000, maxTtlSeconds: 300 },
})

// GitHub Actions OIDC (plain JWT, no scope claim): issuer and JWKS URL are pinned by the preset.
const deployments = githubActionsOidc({ audience: 'https://api.example.com', jwks, shareBearerHeader: true })
// #endregion workload-jwts

// Kubernetes projected service-account tokens from your cluster's issuer.
const cluster = kubernetesServiceAccount({
  issuer: 'https://kubernetes.default.svc.cluster.local',
  jwksUri: 'https://k8s-oidc.example.com/openid/v1/jwks',
  audience: 'https://api.example.com',
  jwks,
  shareBearerHeader: true,
})

const security = createSecurity({
  mechanisms: [partners, deployments, cluster],
  // Grants live in your store; a token's scopes then cap them.
  authorizationResolver: ({ principal }) =>
    principal.id.startsWith('repo:example/')
      ? { scopes: ['deploy'] }
      : { scopes: ['invoices:read', 'invoices:write'] },
})
const router = security.router({ prefix: '/api' })
router.get(
  '/invoices',
  { auth: required('partners'), guards: [requiresScope('invoices:read')] },
  (request, response) => {
    response.json({ caller: request.security.principal.id })
  },
)
router.post(
  '/deployments',
  { auth: required('github-actions', 'kubernetes-service-account') },
  (_request, response) => {
    response.status(202).end()
  },
)

export const app: express.Express = express()
app.use(security.middleware)
app.use(router)
