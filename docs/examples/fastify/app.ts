// A Fastify 5 application with Portcullis: the plugin, route policy and guards in each route's `config`,
// local accounts (session cookie, CSRF), the MCP endpoint, the OpenAPI document and the health route.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { requiresScope, requiresTenantRole } from '@portcullis/core/authorization'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { anonymous, optional, required } from '@portcullis/core/policy'
import {
  healthRoute,
  localAccountRoutes,
  mcpEndpoint,
  portcullis,
  portcullisServerOptions,
  requirePrincipal,
} from '@portcullis/fastify'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import Fastify from 'fastify'

const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(database)
const local = new LocalAccounts({
  profile: 'session',
  accounts: new PostgresAccountStore({ client: database }),
  sessions: new PostgresSessionStore({ client: database }),
  rateLimits: new PostgresRateLimitStore({ client: database }),
  hasher: argon2idPasswordHasher(),
  registration: 'open',
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
})

// #region the-plugin
// URL errors as problem+json, and a parameter limit every Portcullis id fits (see Server options).
export const app = Fastify(portcullisServerOptions())

// First: every route added after the plugin is a Portcullis route.
await app.register(portcullis, {
  mechanisms: local.mechanisms,
  authorizationResolver: async ({ principal }) => ({
    scopes: ['reports:read'],
    tenants: new Map([[`team-of-${principal.id}`, ['owner']]]),
  }),
  openapi: { info: { title: 'Billing', version: '1.0.0' } },
})
// #endregion the-plugin

// #region local-accounts-oauth-and-step-up
// The CSRF check in front of every route, and POST /auth/register, /auth/login, /auth/logout, ...
localAccountRoutes(app, { local })
// #endregion local-accounts-oauth-and-step-up

// #region mcp
// Before the marked routes: a marking mistake then throws where the route is declared.
mcpEndpoint(app, { auth: required('session'), scheme: 'billing' })

// Anonymous; published to agents as billing://plans, cacheable by them for a minute.
app.get(
  '/plans',
  { config: { auth: anonymous(), mcpResource: 'plans', mcpResourceTtlMs: 60_000 } },
  async () => [{ id: 'team', seats: 10 }],
)
// #endregion mcp

// #region route-options-in-config
// No `auth`: the default policy, required() (a session here). The handler reads the verified principal.
app.get('/me', async (request) => ({ account: requirePrincipal(request).id }))

// #region body-limit
// Bodies up to 4 KiB on this route (the others: Fastify's `bodyLimit`); over it 413, naming the limit.
app.post('/notes', { bodyLimit: 4096 }, async (request) => ({ saved: requirePrincipal(request).id }))
// #endregion body-limit

// Optional: anonymous callers get a teaser; a presented but invalid session is still 401.
app.get('/featured', { config: { auth: optional(required('session')) } }, async (request) => ({
  personalised: request.security.principal !== null,
}))

// The tenant comes from the routed path parameter and is checked against the server-resolved grants.
app.get(
  '/tenants/:tenantId/report',
  {
    config: {
      guards: [requiresScope('reports:read'), requiresTenantRole({ roles: ['owner'] })],
      mcpResource: 'tenant-report',
      mcpResourceTemplate: 'tenant://{tenantId}/report',
    },
  },
  async (request) => ({ tenant: (request.params as { tenantId: string }).tenantId }),
)
// #endregion route-options-in-config

// #region health
healthRoute(app, { checks: { database: () => database.ping() } })
// #endregion health

await app.listen({ port: 3000, host: '127.0.0.1' })
