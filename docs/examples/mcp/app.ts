// Publishing read-only routes of a Portcullis-secured Express app to AI agents as MCP resources.
import {
  type AuthenticationMechanism,
  anonymous,
  authenticated,
  invalid,
  none,
  required,
  requiresScope,
  requiresTenantRole,
} from '@portcullis/core'
import { createMCPEndpoint, createSecurity, mcpResource } from '@portcullis/express'
import express from 'express'

declare const verifyAccessToken: (token: string) => Promise<{ sub: string } | undefined>
declare const loadTenantRoles: (userId: string) => Promise<Record<string, string[]>>
declare const loadReport: (tenantId: string) => Promise<{ total: number }>

const bearer: AuthenticationMechanism = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  async authenticate(source) {
    const header = source.header('authorization')
    if (header === undefined) return none()
    const claims = header.startsWith('Bearer ') ? await verifyAccessToken(header.slice(7)) : undefined
    if (claims === undefined) return invalid('bearer: rejected')
    return authenticated({ id: claims.sub, kind: 'user' }, { mechanism: 'bearer', credentialType: 'jwt' })
  },
}

const security = createSecurity({
  mechanisms: [bearer],
  authorizationResolver: async ({ principal }) => ({ tenants: await loadTenantRoles(principal.id) }),
  openapi: { info: { title: 'Billing API', version: '3.2.0' } },
})

// #region mount
const app = express()
app.use(security.middleware)

// Create the endpoint before declaring routes: marking mistakes then throw where the route is declared.
const mcp = createMCPEndpoint({
  security,
  // Who may talk to the endpoint at all; every read is then checked again by the route's own policy,
  // against the same verified authentication (no mechanism runs twice for one call).
  auth: required('bearer'),
  // A token without this scope gets 403 with `Bearer error="insufficient_scope", scope="billing:read"`.
  guards: [requiresScope('billing:read')],
  // List only what the caller could read (a dry run of each route's policy and guards).
  listing: 'readable',
  protectedResource: {
    resource: 'https://billing.example.com/mcp',
    authorizationServers: ['https://login.example.com'],
    scopesSupported: ['billing:read'],
  },
  allowedHosts: ['billing.example.com'],
  skills: { directory: new URL('./skills', import.meta.url).pathname },
})
app.use(mcp)
// #endregion mount

const api = security.router()

// #region marking
// Route option form: published as express://plans. Anonymous, so 2026-07-28 reads say
// `cacheScope: "public"`; clients may keep the answer for a minute.
api.get(
  '/plans',
  {
    auth: anonymous(),
    mcpResource: 'plans',
    mcpResourceMimeType: 'application/json',
    mcpResourceTtlMs: 60_000,
  },
  (_req, res) => {
    res.json([{ id: 'team', seats: 10 }])
  },
)
// #endregion marking

// #region templates
// A template: tenant://acme/report reads GET /tenants/acme/report with the caller's credentials,
// so requiresTenantRole decides exactly as it would for a direct request.
api.get(
  '/tenants/:tenantId/report',
  {
    guards: [requiresTenantRole({ roles: ['owner', 'billing'] })],
    mcpResource: 'tenant-report',
    mcpResourceTemplate: 'tenant://{tenantId}/report',
    mcpResourceMimeType: 'application/json',
    mcpResourceDescription: 'Monthly billing report of one tenant',
  },
  async (req, res) => {
    res.json(await loadReport(String(req.params.tenantId)))
  },
)
// #endregion templates

// #region marking
// Wrapper form: the handler itself carries the mark.
api.get(
  '/invoices/latest.pdf',
  mcpResource('latest-invoice', { mimeType: 'application/pdf' })((_req, res) => {
    res.type('application/pdf').send(Buffer.from('%PDF-1.7 ...'))
  }),
)
// #endregion marking

app.use(api)

// #region mount
// After every route is declared: validates the marked routes and loads the skills catalog.
await mcp.attach(app)
// #endregion mount
app.listen(3000, '127.0.0.1')
