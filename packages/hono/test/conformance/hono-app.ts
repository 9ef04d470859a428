import { type ServerType, serve } from '@hono/node-server'
import type { AdapterApp, AdapterScenario, ScenarioRoute } from '@portcullis/conformance/adapters'
import { bodyTooLargeProblem } from '@portcullis/http/body'
import { Hono, type MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import {
  type AnyHono,
  accountEmailRoutes,
  activityRoutes,
  administrationRoutes,
  createAccountRoutes,
  createActiveOrganizationRoutes,
  createOAuthRoutes,
  createOrganizationDomainRoutes,
  createOrganizationRoutes,
  createSecurity,
  currentLocalSession,
  type HonoSecurity,
  impersonationRoutes,
  localAccountRoutes,
  mcpEndpoint,
  passkeyRoutes,
  securityOf,
  sendProblem,
  totpRoutes,
} from '../../src/index.js'

/** What a broken-adapter test may change of the application `honoApp` builds. */
export interface AppChanges {
  /** Runs before the generated routes are declared. */
  readonly beforeRoutes?: (app: AnyHono, security: HonoSecurity) => void
  /** Runs after every route is declared, before `ready`. */
  readonly afterRoutes?: (app: AnyHono, security: HonoSecurity) => void
  /** Runs after `ready(app)` compiled the app (and after the scenario's uncompiled routes). */
  readonly afterReady?: (app: AnyHono, security: HonoSecurity) => void
  /** Leaves out `app.onError(security.onError)`. */
  readonly errorHandler?: boolean
  /**
   * The body limit in front of the application's own routes. Default: `hono/body-limit` answering the
   * 413 problem that names the limit.
   */
  readonly bodyLimit?: (limit: number) => MiddlewareHandler
}

/** `hono/body-limit` answering the 413 problem that names the limit, as the documentation shows. */
export function namedBodyLimit(limit: number): MiddlewareHandler {
  return bodyLimit({ maxSize: limit, onError: (c) => sendProblem(c, bodyTooLargeProblem(limit)) })
}

/** Builds the scenario's application the way a Hono user would, and serves it on loopback. */
export async function honoApp(scenario: AdapterScenario, changes: AppChanges = {}): Promise<AdapterApp> {
  const security = createSecurity(scenario.security)
  const app = new Hono()
  app.use(security.middleware)
  if (changes.errorHandler !== false) app.onError(security.onError)
  changes.beforeRoutes?.(app, security)
  if (scenario.local !== undefined) localAccountRoutes(app, security, { local: scenario.local })
  if (scenario.accounts !== undefined) createAccountRoutes(app, security, scenario.accounts)
  if (scenario.passkeys !== undefined) passkeyRoutes(app, security, scenario.passkeys)
  if (scenario.totp !== undefined) totpRoutes(app, security, scenario.totp)
  if (scenario.accountEmail !== undefined) accountEmailRoutes(app, security, scenario.accountEmail)
  if (scenario.activity !== undefined) activityRoutes(app, security, scenario.activity)
  if (scenario.administration !== undefined) administrationRoutes(app, security, scenario.administration)
  if (scenario.impersonation !== undefined) impersonationRoutes(app, security, scenario.impersonation)
  if (scenario.organizations !== undefined) createOrganizationRoutes(app, security, scenario.organizations)
  if (scenario.organizationDomains !== undefined) {
    createOrganizationDomainRoutes(app, security, scenario.organizationDomains)
  }
  if (scenario.activeOrganization !== undefined) {
    createActiveOrganizationRoutes(app, security, scenario.activeOrganization)
  }
  const { mcp } = scenario
  if (mcp !== undefined) {
    mcpEndpoint(app, security, {
      scheme: mcp.scheme,
      ...(mcp.auth === undefined ? {} : { auth: mcp.auth }),
      ...(mcp.listing === undefined ? {} : { listing: mcp.listing }),
      ...(mcp.protectedResource === undefined ? {} : { protectedResource: mcp.protectedResource }),
      ...(mcp.allowedHosts === undefined ? {} : { allowedHosts: mcp.allowedHosts }),
    })
  }
  const { oauth } = scenario
  if (oauth !== undefined) {
    createOAuthRoutes(app, security, {
      lifecycle: oauth.lifecycle,
      auth: oauth.auth,
      currentSession: currentLocalSession(security, oauth.auth),
      signIn: async ({ accountId, identity }, c) => {
        const { setCookie, body } = await oauth.signIn(accountId, identity)
        c.header('set-cookie', setCookie, { append: true })
        return body
      },
      ...(oauth.backchannelLogout === undefined ? {} : { backchannelLogout: oauth.backchannelLogout }),
      ...(oauth.events === undefined ? {} : { events: oauth.events }),
    })
  }
  const limit = changes.bodyLimit ?? namedBodyLimit
  for (const route of scenario.routes) declare(app, security, route, scenario.bodyLimit, limit)
  changes.afterRoutes?.(app, security)
  security.ready(app)
  // the mistake the uncompiled routes stand for: declared after `ready(app)` compiled the app
  for (const route of scenario.uncompiledRoutes ?? [])
    declare(app, security, route, scenario.bodyLimit, limit)
  changes.afterReady?.(app, security)
  return listen(app)
}

function declare(
  app: AnyHono,
  security: HonoSecurity,
  route: ScenarioRoute,
  limit: number | undefined,
  limiter: (limit: number) => MiddlewareHandler,
): void {
  const limits = limit === undefined ? [] : [limiter(limit)]
  app.on(route.method, route.path, security.route(route.options), ...limits, async (c) => {
    const body = route.readsJson === true ? await c.req.json() : undefined
    if (route.readsJson !== true && route.method !== 'GET') await c.req.text()
    if (route.cacheControl !== undefined) c.header('Cache-Control', route.cacheControl)
    return c.json(
      route.respond({
        security: securityOf(c),
        params: c.req.param() as Record<string, string>,
        body,
      }) as object,
    )
  })
}

/** Serves a Hono app with `@hono/node-server` on a free loopback port. */
export function listen(app: AnyHono): Promise<AdapterApp> {
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
            server.close(() => done())
          }),
      })
    })
  })
}
