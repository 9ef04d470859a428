import type { AuthorizationServer } from '@portcullis/authorization-server'
import { HttpProblem, type MCPEndpoint, mountHealthRoute, type Security } from '@portcullis/express'
import type { PostgresClient } from '@portcullis/postgres'
import express, { type Express, type RequestHandler } from 'express'
import { apiRoutes } from './api/api-routes.js'
import { apiKeyRoutes } from './api-keys/api-key-routes.js'
import type { ReferenceContext } from './app-context.js'
import { connectedAppsRoutes } from './connected-apps/connected-apps-routes.js'
import { homeRoutes } from './home/home-routes.js'
import { htmlProblemPages, stylesheet } from './layout/error-pages.js'
import { mailboxRoutes } from './mail/mailbox-page.js'
import { mcpPageRoutes, type RegistryHolder } from './mcp/mcp-page.js'
import { OAUTH_PATH } from './oauth-server/names.js'
import { eventRoutes } from './security-events/event-routes.js'
import { tenantRoutes } from './tenants/tenant-routes.js'
import type { WorkloadSigner } from './workload/workload-signer.js'

/** The demo's parts, built by `composeDemo` (security, the MCP endpoint, the account routers, ...). */
export interface DemoParts {
  readonly context: ReferenceContext
  readonly security: Security
  readonly mcp: MCPEndpoint
  readonly registry: RegistryHolder
  /**
   * Sign-in and accounts, in mounting order: the local-account routes under `/auth/` (their CSRF guard
   * first), the OAuth routes under `/auth/oauth/`, then the account pages.
   */
  readonly accountRouters: readonly RequestHandler[]
  readonly signer: WorkloadSigner
  /** The app's own OAuth authorization server for MCP clients, served under `/oauth`. */
  readonly authorizationServer: AuthorizationServer
  /** Proxies whose `X-Forwarded-For` is believed (Express `trust proxy`). */
  readonly trustedProxies: readonly string[]
}

export interface ReferenceAppOptions {
  readonly postgres: PostgresClient
  /** Without the demo's parts the app serves only its health route and a plain home page. */
  readonly demo?: DemoParts
}

/**
 * The reference application: one router per area behind the shared layout. Order matters: security
 * middleware first (headers, OpenAPI), the MCP endpoint before any body parser, HTML error pages for
 * browsers, the areas, then a 404.
 */
export function createReferenceApp(options: ReferenceAppOptions): Express {
  const app = express()
  app.disable('x-powered-by')
  mountHealthRoute(app, { checks: { database: () => options.postgres.ping() } })
  const demo = options.demo
  if (demo === undefined) {
    app.get('/', (_request, response) => {
      response.type('text/plain').send('Portcullis reference app. Health: /healthz\n')
    })
    return app
  }
  app.set('trust proxy', demo.trustedProxies.length === 0 ? false : [...demo.trustedProxies])
  const { security, context } = demo
  app.use(security.middleware)
  app.use(stylesheet)
  app.use(demo.mcp)
  // The authorization server reads its own bodies (before any parser); its metadata sits where MCP
  // clients look for it (RFC 8414 path insertion).
  app.get(demo.authorizationServer.metadataPath, demo.authorizationServer.metadataHandler)
  app.use(OAUTH_PATH, demo.authorizationServer.handler)
  app.use(htmlProblemPages(security, context.directory))
  // One router per area.
  for (const router of demo.accountRouters) app.use(router)
  app.use(homeRoutes(security, context))
  app.use(apiKeyRoutes(security, context))
  app.use(connectedAppsRoutes(security, context, demo.authorizationServer))
  app.use(tenantRoutes(security, context))
  app.use(eventRoutes(security, context))
  app.use(mcpPageRoutes(security, context, demo.registry))
  app.use(apiRoutes(security, context, demo.signer))
  // Development only: what the in-process SMTP server received (absent in production: a 404).
  if (context.mailbox !== undefined) app.use(mailboxRoutes(security, context, context.mailbox))
  app.use((_request, _response, next) => {
    next(new HttpProblem({ status: 404, code: 'route.not_found', detail: 'Not found' }))
  })
  app.use(security.errorHandler)
  return app
}
