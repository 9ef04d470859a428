// Route policy decides where each registered mechanism is accepted; guards check the snapshot.
import {
  allOf,
  anonymous,
  anyOf,
  exclude,
  optional,
  required,
  requiresAnyOf,
  requiresRole,
  requiresScope,
  requiresStepUp,
  requiresTenant,
  requiresTenantRole,
  type StepUpVerifier,
} from '@portcullis/core'
import { createSecurity, mountHealthRoute } from '@portcullis/express'
import express from 'express'
import { serviceToken } from './mechanism.js'
import { resolverFor } from './resolver.js'
import { sessionMechanism } from './session.js'

declare const stepUpVerifier: StepUpVerifier
declare const grants: Parameters<typeof resolverFor>[0]

const security = createSecurity({
  mechanisms: [sessionMechanism, serviceToken],
  authorizationResolver: resolverFor(grants),
  stepUp: { verifier: stepUpVerifier },
  openapi: { path: '/openapi.json', info: { title: 'Projects', version: '1.0.0' } },
  onRejection: ({ status, code, reason, route }) => console.warn('denied', status, code, reason, route),
})

const api = security.router({ prefix: '/api' })

// Public: no credential is read; documented with `security: []`.
api.get('/status', { auth: anonymous() }, (_req, res) => {
  res.json({ ok: true })
})

// No `auth`: the default, `required()` = any mechanism with `default` not false (here: the session).
api.get('/me', (req, res) => {
  res.json({ principal: req.security.principal })
})

// #region policy-decides-where-a-mechanism-is-acce
// Either a session or a service token; the handler sees a non-null principal.
api.get(
  '/reports',
  { auth: anyOf('session', 'service-token'), guards: [requiresScope('reports:read')] },
  (req, res) => {
    res.json({ for: req.security.principal.id })
  },
)

// Anonymous callers get a teaser; a presented but invalid session is still 401.
api.get('/projects/featured', { auth: optional(required('session')) }, (req, res) => {
  res.json({ personalised: req.security.principal !== null })
})
// #endregion policy-decides-where-a-mechanism-is-acce

// #region tenants
// The tenant comes from the path and is checked against the server-resolved snapshot:
// `/api/tenants/B/projects` with a snapshot for tenant A is 403.
api.get(
  '/tenants/:tenantId/projects',
  { auth: required('session'), guards: [requiresTenant()] },
  (req, res) => {
    res.json({ tenant: req.params.tenantId })
  },
)
// #endregion tenants
api.delete(
  '/tenants/:tenantId/projects/:projectId',
  {
    auth: required('session'),
    guards: [
      requiresAnyOf(
        requiresRole('support'),
        requiresTenantRole({ tenantParameter: 'tenantId', roles: ['owner', 'admin'] }),
      ),
    ],
  },
  (_req, res) => {
    res.status(204).end()
  },
)

// Dangerous operations also need a fresh one-use step-up credential (header `portcullis-step-up`).
api.post(
  '/tenants/:tenantId/transfer',
  {
    auth: required('session'),
    guards: [requiresTenantRole({ roles: ['owner'] }), requiresStepUp('tenant-transfer')],
  },
  (_req, res) => {
    res.status(202).end()
  },
)

// Both credentials, agreeing on one principal (a service acting with a session is refused).
api.post('/exports', { auth: allOf('session', 'service-token') }, (_req, res) => {
  res.status(202).end()
})

// Outside Portcullis: no credential work and left out of the OpenAPI document.
api.get('/internal/metrics', { auth: exclude() }, (_req, res) => {
  res.type('text/plain').send('requests_total 1\n')
})

const app = express()
app.use(security.middleware)
mountHealthRoute(app)
app.use(api)
app.use(security.errorHandler)
app.listen(3000, '127.0.0.1')
