import { type ServerType, serve } from '@hono/node-server'
import type { AdapterApp, AdapterScenario, ScenarioRoute } from '@portcullis/conformance/adapters'
import { bodyTooLargeProblem } from '@portcullis/http/body'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import {
  type AnyHono,
  createAccountRoutes,
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  type HonoSecurity,
  localAccountRoutes,
  mcpEndpoint,
  passkeyRoutes,
  securityOf,
  sendProblem,
  totpRoutes,
} from '../../src/index.js'

/** What a broken-adapter test may change: after the routes are declared, and before `ready`. */
export interface AppChanges {
  readonly beforeRoutes?: (app: AnyHono, security: HonoSecurity) => void
  readonly afterRoutes?: (app: AnyHono, security: HonoSecurity) => void
  /** Leaves out `app.onError(security.onError)`. */
  readonly errorHandler?: boolean
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
  const { mcp } = scenario
  if (mcp !== undefined) {
    mcpEndpoint(app, security, {
      scheme: mcp.scheme,
      ...(mcp.auth === undefined ? {} : { auth: mcp.auth }),
      ...(mcp.listing === undefined ? {} : { listing: mcp.listing }),
      ...(mcp.protectedResource === undefined ? {} : { protectedResource: mcp.protectedResource }),
    })
  }
  const { oauth } = scenario
  if (oauth !== undefined) {
    createOAuthRoutes(app, security, {
      lifecycle: oauth.lifecycle,
      auth: oauth.auth,
      currentSession: currentLocalSession(security, oauth.auth),
      signIn: ({ accountId }, c) => {
        const { setCookie, body } = oauth.signIn(accountId)
        c.header('set-cookie', setCookie, { append: true })
        return body
      },
    })
  }
  for (const route of scenario.routes) declare(app, security, route, scenario.bodyLimit)
  changes.afterRoutes?.(app, security)
  security.ready(app)
  // the mistake the uncompiled routes stand for: declared after `ready(app)` compiled the app
  for (const route of scenario.uncompiledRoutes ?? []) declare(app, security, route, scenario.bodyLimit)
  return listen(app)
}

function declare(
  app: AnyHono,
  security: HonoSecurity,
  route: ScenarioRoute,
  limit: number | undefined,
): void {
  const limits =
    limit === undefined
      ? []
      : [bodyLimit({ maxSize: limit, onError: (c) => sendProblem(c, bodyTooLargeProblem(limit)) })]
  app.on(route.method, route.path, security.route(route.options), ...limits, async (c) => {
    if (route.method !== 'GET') await c.req.text()
    return c.json(
      route.respond({ security: securityOf(c), params: c.req.param() as Record<string, string> }) as object,
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
