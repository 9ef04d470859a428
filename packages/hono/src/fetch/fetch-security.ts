import type { SecurityContext } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { AccountEmailRouteTableOptions } from '@portcullis/http/account-email'
import type { AccountRouteTableOptions } from '@portcullis/http/accounts'
import type { ActivityRouteTableOptions } from '@portcullis/http/activity'
import type { AdministrationRouteTableOptions } from '@portcullis/http/administration'
import type { HealthRouteOptions } from '@portcullis/http/health'
import type { ImpersonationRouteTableOptions } from '@portcullis/http/impersonation'
import type {
  ActiveOrganizationRouteTableOptions,
  OrganizationDomainRouteTableOptions,
  OrganizationRouteTableOptions,
} from '@portcullis/http/organizations'
import type { PasskeyRouteTableOptions } from '@portcullis/http/passkeys'
import type { HttpMethod, RouteOptions } from '@portcullis/http/routing'
import type { TotpRouteTableOptions } from '@portcullis/http/totp'
import { problemResponse, type WebClientAddress } from '@portcullis/http/web'
import { type Context, Hono } from 'hono'
import { accountEmailRoutes } from '../account-email/routes.js'
import { createAccountRoutes } from '../accounts/routes.js'
import { activityRoutes } from '../activity/routes.js'
import { administrationRoutes } from '../administration/routes.js'
import { refuseMalformedRequestJson } from '../body/json-body.js'
import { healthRoute } from '../health/health-route.js'
import { impersonationRoutes } from '../impersonation/routes.js'
import { type LocalAccountRoutes, localAccountRoutes } from '../local-accounts/routes.js'
import { mcpEndpoint } from '../mcp/endpoint.js'
import type { MCPEndpointOptions } from '../mcp/options.js'
import {
  type CurrentSession,
  createOAuthRoutes,
  currentLocalSession,
  type OAuthRoutesOptions,
} from '../oauth/routes.js'
import { createActiveOrganizationRoutes } from '../organizations/active-routes.js'
import { createOrganizationDomainRoutes } from '../organizations/domain-routes.js'
import { createOrganizationRoutes } from '../organizations/routes.js'
import { passkeyRoutes } from '../passkeys/routes.js'
import { sendProblem } from '../problem/problems.js'
import { MALFORMED_URL, routeParams } from '../routing/route-params.js'
import { createSecurity, type HonoSecurity, type HonoSecurityOptions } from '../security/create-security.js'
import { securityOf } from '../security/request-context.js'
import type { HonoHandler } from '../security/route-marks.js'
import { totpRoutes } from '../totp/routes.js'
import { contextClientAddress, requireAllowedHosts } from './client-address.js'

export interface FetchSecurityOptions extends Omit<HonoSecurityOptions, 'clientAddress'> {
  /**
   * Where the client's address comes from, for per-address rate limits and session records:
   * `(request, env) => string | undefined`, with `env` what the runtime passed to `fetch` beside the
   * request (Bun: `(request, server) => server.requestIP(request)?.address`; Deno:
   * `(request, info) => info.remoteAddr.hostname`; Workers: `headerClientAddress('CF-Connecting-IP')`;
   * Next.js behind a proxy: `forwardedClientAddress()`). Default `nodeSocketClientAddress`: the socket
   * `@hono/node-server` passes as `env.incoming`. When it answers `undefined`, per-address limits count the
   * request under one key shared by every such request: never skipped.
   */
  readonly clientAddress?: WebClientAddress
  /** Prefix of the generated routes: `{base}/auth/...`, `{base}/mcp`. Default none. */
  readonly base?: string
  /** Serves the local-account routes (`{base}/auth/login`, ...) and their CSRF check. */
  readonly local?: LocalAccounts
  /** Serves the account routes (`{base}/auth/account`, `{base}/auth/step-up/{purpose}`, ...). */
  readonly accounts?: Omit<AccountRouteTableOptions, 'base'>
  /** Serves the passkey routes (after the local-account routes). */
  readonly passkeys?: Omit<PasskeyRouteTableOptions, 'base'>
  /** Serves the TOTP routes (after the local-account routes). */
  readonly totp?: Omit<TotpRouteTableOptions, 'base'>
  /** Serves the account email routes (sign-up with verification, password reset, ...) after the local-account routes. */
  readonly accountEmail?: Omit<AccountEmailRouteTableOptions, 'base'>
  /** Serves the activity routes (recent activity, sessions, signing out) after the local-account routes. */
  readonly activity?: Omit<ActivityRouteTableOptions, 'base'>
  /** Serves the impersonation routes (`{base}/auth/impersonation`, ...) after the local-account routes. */
  readonly impersonation?: Omit<ImpersonationRouteTableOptions, 'base'>
  /** Serves the organization routes (`{base}/auth/organizations`, members, invitations) after the local-account routes. */
  readonly organizations?: Omit<OrganizationRouteTableOptions, 'base'>
  /** Serves the active-organization routes (`{base}/auth/active-organization`) after the local-account routes. */
  readonly activeOrganization?: Omit<ActiveOrganizationRouteTableOptions, 'base'>
  /** Serves the organization-domain routes (`{base}/auth/organizations/{id}/domains`, ...) after the local-account routes. */
  readonly organizationDomains?: Omit<OrganizationDomainRouteTableOptions, 'base'>
  /** Serves the administration routes (`{base}/auth/admin/...`, administrators only) after the local-account routes. */
  readonly administration?: Omit<AdministrationRouteTableOptions, 'base'>
  /**
   * Serves the OAuth / OIDC routes (`{base}/auth/oauth/{provider}/...`). Its callbacks receive the Hono
   * `Context` of the request: set a cookie with `c.header('set-cookie', value, { append: true })`.
   * `currentSession` defaults to `currentLocalSession` over this instance and the routes' `auth`.
   */
  readonly oauth?: Omit<OAuthRoutesOptions, 'base' | 'currentSession'> & {
    readonly currentSession?: CurrentSession
  }
  /**
   * Serves the MCP endpoint at `{base}/mcp` (or its own `path`) publishing the routes marked `mcpResource`.
   * Its `allowedHosts` is required: the fetch form cannot see the address its server was reached on.
   */
  readonly mcp?: MCPEndpointOptions
  /** Serves a health route (`{base}/healthz` unless its own `path`). */
  readonly health?: HealthRouteOptions
}

/** What a secured handler of the fetch form receives besides the request. */
export interface FetchRouteContext {
  /** The verified security context of the route. */
  readonly security: SecurityContext
  /** The path parameters (`/api/reports/:id`). */
  readonly params: Readonly<Record<string, string>>
}

export type FetchRouteHandler = (request: Request, context: FetchRouteContext) => Response | Promise<Response>

/**
 * A Web-standard handler: a Next.js route handler, `Bun.serve`'s or `Deno.serve`'s `fetch`. `env` is what
 * the runtime passes beside the request (Bun's `server`, Deno's `info`, `@hono/node-server`'s
 * `{ incoming, outgoing }`): it reaches `clientAddress` and the Hono context (`c.env`).
 */
export type FetchRoute = (request: Request, env?: unknown) => Promise<Response>

export interface FetchSecurity {
  /**
   * Declares a secured route and returns a handler that serves it (and, like `fetch`, every other route):
   * its policy and guards run first, then `handler(request, { security, params })`. The route is compiled
   * here: a mistake in its options throws a `ConfigurationError` from this call, and the route is not
   * declared (later declarations are unaffected). Declare every route at module load: once `fetch` served
   * a request, `route` throws a `ConfigurationError` (`route.declared_while_serving`).
   */
  route(method: HttpMethod, path: string, options: RouteOptions, handler: FetchRouteHandler): FetchRoute
  /** Serves everything: the generated routes, the MCP endpoint, the OpenAPI document and every `route`. */
  readonly fetch: FetchRoute
  /** The sign-in helpers of the local-account routes, when `local` is given. */
  readonly local: LocalAccountRoutes | undefined
  /** The Hono security instance underneath (its registry, OpenAPI document and evaluation). */
  readonly security: HonoSecurity
}

const NOT_FOUND = { status: 404, code: 'request.not_found', detail: 'No route matches the request' } as const

/** A `route(...)` declared once the fetch form served a request: Hono's router is built by then. */
function declaredWhileServing(method: string, path: string): ConfigurationError {
  return new ConfigurationError(
    'route.declared_while_serving',
    `route ${method} ${path} is declared after the fetch form served its first request: declare every ` +
      'route at module load, before serving (in Next.js, in a module the catch-all route imports)',
    { option: `route ${method} ${path}` },
  )
}

/**
 * The fetch form of Portcullis, for frameworks without middleware (Next.js App Router route handlers,
 * `Bun.serve`, `Deno.serve`): every entry point is `(request: Request) => Promise<Response>`, the
 * security context reaches each handler as an argument, errors are problem+json (a body that is not JSON
 * makes the handler's `request.json()` throw the 400 problem, not a 500). It is a Hono app
 * underneath; you write no Hono code.
 */
export function createFetchSecurity(options: FetchSecurityOptions): FetchSecurity {
  const {
    base = '',
    local,
    accounts,
    passkeys,
    totp,
    accountEmail,
    activity,
    administration,
    impersonation,
    organizations,
    organizationDomains,
    activeOrganization,
    oauth,
    mcp,
    health,
    clientAddress,
    ...securityOptions
  } = options
  if (base !== '' && (!base.startsWith('/') || base.endsWith('/'))) {
    throw new ConfigurationError('route.invalid_prefix', 'base must start with "/" and not end with "/"')
  }
  if (mcp !== undefined) requireAllowedHosts(mcp)
  const security = createSecurity({ ...securityOptions, clientAddress: contextClientAddress(clientAddress) })
  const app = new Hono()
  app.use(security.middleware)
  app.onError(security.onError)
  app.notFound(() => problemResponse(NOT_FOUND))
  const localRoutes = local === undefined ? undefined : localAccountRoutes(app, security, { local, base })
  if (accounts !== undefined) createAccountRoutes(app, security, { ...accounts, base })
  if (passkeys !== undefined) passkeyRoutes(app, security, { ...passkeys, base })
  if (totp !== undefined) totpRoutes(app, security, { ...totp, base })
  if (accountEmail !== undefined) accountEmailRoutes(app, security, { ...accountEmail, base })
  if (activity !== undefined) activityRoutes(app, security, { ...activity, base })
  if (administration !== undefined) administrationRoutes(app, security, { ...administration, base })
  if (impersonation !== undefined) impersonationRoutes(app, security, { ...impersonation, base })
  if (organizations !== undefined) createOrganizationRoutes(app, security, { ...organizations, base })
  if (organizationDomains !== undefined) {
    createOrganizationDomainRoutes(app, security, { ...organizationDomains, base })
  }
  if (activeOrganization !== undefined) {
    createActiveOrganizationRoutes(app, security, { ...activeOrganization, base })
  }
  if (oauth !== undefined) {
    const currentSession = oauth.currentSession ?? currentLocalSession(security, oauth.auth)
    createOAuthRoutes(app, security, { ...oauth, currentSession, base })
  }
  if (mcp !== undefined) mcpEndpoint(app, security, { path: `${base}/mcp`, ...mcp })
  if (health !== undefined) healthRoute(app, { path: `${base}/healthz`, ...health })

  // Every declaration is compiled at once, so a mistake throws where the route is declared.
  security.ready(app)
  let serving = false
  // no async wrapper: one promise fewer per request
  const fetch: FetchRoute = (request, env) => {
    serving = true
    const answer = app.fetch(request, env)
    return answer instanceof Promise ? answer : Promise.resolve(answer)
  }
  return {
    route(method, path, routeOptions, handler) {
      if (serving) throw declaredWhileServing(method, path)
      const guard = security.route(routeOptions)
      // a path parameter that does not percent-decode never reaches the handler
      const serve = (c: Context) => {
        const params = routeParams(c)
        if (params === undefined) return sendProblem(c, MALFORMED_URL)
        return handler(refuseMalformedRequestJson(c.req.raw), { security: securityOf(c), params })
      }
      // compiled and recorded before Hono sees it: a route that throws here is not left on the app to
      // make every later declaration throw again
      security.ready({
        routes: [
          { method, path, handler: guard as HonoHandler },
          { method, path, handler: serve as HonoHandler },
        ],
      })
      app.on(method, path, guard, serve)
      return fetch
    },
    fetch,
    local: localRoutes,
    security,
  }
}
