// A Hono 4 application with Portcullis: the security middleware, route options as each route's first
// middleware, local accounts (session cookie, CSRF), an API key, the MCP endpoint, the OpenAPI document
// and the health route. `app.test.ts` drives it with `app.request` (no socket).
import { randomBytes } from 'node:crypto'
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { ApiKeyPepperRing, ApiKeyService, apiKey } from '@portcullis/core/api-keys'
import { requiresScope, requiresTenantRole } from '@portcullis/core/authorization'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { anonymous, anyOf, optional, required } from '@portcullis/core/policy'
import {
  createSecurity,
  healthRoute,
  limitBody,
  localAccountRoutes,
  mcpEndpoint,
  type PortcullisEnv,
  requirePrincipal,
} from '@portcullis/hono'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import { Hono } from 'hono'

const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(database)
export const local = new LocalAccounts({
  profile: 'session',
  accounts: new PostgresAccountStore({ client: database }),
  sessions: new PostgresSessionStore({ client: database }),
  rateLimits: new PostgresRateLimitStore({ client: database }),
  hasher: argon2idPasswordHasher(),
  registration: 'open',
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
})
export const apiKeys = new ApiKeyService({
  store: new PostgresApiKeyStore({ client: database }),
  peppers: new ApiKeyPepperRing({ version: '2026-11', secret: randomBytes(32) }),
  prefix: 'billing',
})

// #region the-middleware
export const security = createSecurity({
  mechanisms: [...local.mechanisms, apiKey({ service: apiKeys })],
  authorizationResolver: async ({ principal }) => ({
    scopes: ['reports:read'],
    tenants: new Map([[`team-of-${principal.id}`, ['owner']]]),
  }),
  openapi: { info: { title: 'Billing', version: '1.0.0' } },
})

export const app = new Hono<PortcullisEnv>()
// First: the header baseline, an anonymous c.var.security, the OpenAPI document at /openapi.json;
// c.req.json() on a body that is not JSON throws the 400 problem request.invalid.
app.use(security.middleware)
// problem+json for every error: typed errors by class, Hono's HTTPException 4xx with its status and
// its response's headers (WWW-Authenticate), anything else 500 without message or stack.
app.onError(security.onError)
// #endregion the-middleware

// #region local-accounts
// Before your routes: the CSRF check in front of every route declared after it, and
// POST /auth/register, /auth/login, /auth/logout, ..., GET /auth/csrf.
localAccountRoutes(app, security, { local })
// #endregion local-accounts

// #region mcp
// Published to agents as billing://plans; each read runs GET /plans in-process through app.fetch.
// allowedHosts: the Host names it answers for. Where the app sees no socket (Bun, Deno, Workers,
// app.request) the endpoint refuses every request without them (DNS rebinding fails closed).
mcpEndpoint(app, security, {
  auth: anyOf('session', 'api-key'),
  scheme: 'billing',
  allowedHosts: ['app.example', 'localhost'],
})
app.get(
  '/plans',
  security.route({ auth: anonymous(), mcpResource: 'plans', mcpResourceTtlMs: 60_000 }),
  (c) => c.json([{ id: 'team', seats: 10 }]),
)
// #endregion mcp

// #region route-options
// `security.route(options)` is the route's first middleware; `{}` is the default policy, required().
app.get('/me', security.route(), (c) => c.json({ account: requirePrincipal(c).id }))

// Optional: anonymous callers get a teaser; a presented but invalid session is still 401.
app.get('/featured', security.route({ auth: optional(required('session')) }), (c) =>
  c.json({ personalised: c.var.security.principal !== null }),
)

// The tenant comes from the routed path parameter and is checked against the server-resolved grants.
app.get(
  '/tenants/:tenantId/report',
  security.route({
    guards: [requiresScope('reports:read'), requiresTenantRole({ roles: ['owner'] })],
    mcpResource: 'tenant-report',
    mcpResourceTemplate: 'tenant://{tenantId}/report',
  }),
  (c) => c.json({ tenant: c.req.param('tenantId') }),
)
// #endregion route-options

// #region body-limit
// Bodies up to 4 KiB on this route; over it 413 request.body_too_large naming the limit, and a body
// that is not JSON 400 request.invalid.
app.post('/notes', security.route(), limitBody(4096), async (c) =>
  c.json({ saved: (await c.req.json()) !== null }),
)
// #endregion body-limit

// #region health
healthRoute(app, { checks: { database: () => database.ping() } })
// #endregion health

// #region ready
// Last, once every route is declared: compiles each route's options (a mistake throws here) and
// records it for OpenAPI and MCP. A route declared after this answers 500, never unsecured.
security.ready(app)
// #endregion ready
