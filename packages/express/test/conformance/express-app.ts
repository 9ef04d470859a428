import type { AddressInfo } from 'node:net'
import type { AdapterApp, AdapterScenario } from '@portcullis/conformance/adapters'
import { anonymousContext } from '@portcullis/core/authorization'
import express, { type Express, type RequestHandler } from 'express'
import {
  accountEmailRoutes,
  activityRoutes,
  administrationRoutes,
  createAccountRoutes,
  createActiveOrganizationRoutes,
  createMCPEndpoint,
  createOAuthRoutes,
  createOrganizationDomainRoutes,
  createOrganizationRoutes,
  createSecurity,
  currentLocalSession,
  impersonationRoutes,
  localAccountRoutes,
  passkeyRoutes,
  type SecuredHandler,
  type Security,
  totpRoutes,
} from '../../src/index.js'

/** Builds the scenario's application the way an Express user would, and starts it on loopback. */
export async function expressApp(
  scenario: AdapterScenario,
  change: (app: Express, security: Security) => void = () => {},
): Promise<AdapterApp> {
  const app = express()
  // the mistake the uncompiled routes stand for: route options on the application's own route method
  for (const route of scenario.uncompiledRoutes ?? []) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete'
    const handler: RequestHandler = (request, response) => {
      response.json(
        route.respond({
          security: request.security ?? anonymousContext,
          params: request.params as Record<string, string>,
        }),
      )
    }
    ;(app[method] as (path: string, ...handlers: unknown[]) => unknown)(route.path, route.options, handler)
  }
  const security = createSecurity(scenario.security)
  app.use(security.middleware)
  if (scenario.local !== undefined) app.use(localAccountRoutes({ local: scenario.local, security }))
  if (scenario.accounts !== undefined) app.use(createAccountRoutes({ ...scenario.accounts, security }))
  if (scenario.passkeys !== undefined) app.use(passkeyRoutes({ ...scenario.passkeys, security }))
  if (scenario.totp !== undefined) app.use(totpRoutes({ ...scenario.totp, security }))
  if (scenario.accountEmail !== undefined) app.use(accountEmailRoutes({ ...scenario.accountEmail, security }))
  if (scenario.activity !== undefined) app.use(activityRoutes({ ...scenario.activity, security }))
  if (scenario.administration !== undefined) {
    app.use(administrationRoutes({ ...scenario.administration, security }))
  }
  if (scenario.impersonation !== undefined) {
    app.use(impersonationRoutes({ ...scenario.impersonation, security }))
  }
  if (scenario.organizations !== undefined) {
    app.use(createOrganizationRoutes({ ...scenario.organizations, security }))
  }
  if (scenario.organizationDomains !== undefined) {
    app.use(createOrganizationDomainRoutes({ ...scenario.organizationDomains, security }))
  }
  if (scenario.activeOrganization !== undefined) {
    app.use(createActiveOrganizationRoutes({ ...scenario.activeOrganization, security }))
  }
  const { mcp: endpoint } = scenario
  const mcp =
    endpoint === undefined
      ? undefined
      : createMCPEndpoint({
          security,
          scheme: endpoint.scheme,
          ...(endpoint.auth === undefined ? {} : { auth: endpoint.auth }),
          ...(endpoint.listing === undefined ? {} : { listing: endpoint.listing }),
          ...(endpoint.protectedResource === undefined
            ? {}
            : { protectedResource: endpoint.protectedResource }),
          ...(endpoint.allowedHosts === undefined ? {} : { allowedHosts: endpoint.allowedHosts }),
        })
  if (mcp !== undefined) app.use(mcp)
  const { oauth } = scenario
  if (oauth !== undefined) {
    app.use(
      createOAuthRoutes({
        security,
        lifecycle: oauth.lifecycle,
        auth: oauth.auth,
        currentSession: currentLocalSession(security, oauth.auth),
        signIn: async ({ accountId, identity }, _request, response) => {
          const { setCookie, body } = await oauth.signIn(accountId, identity)
          response.append('Set-Cookie', setCookie)
          return body
        },
        ...(oauth.backchannelLogout === undefined ? {} : { backchannelLogout: oauth.backchannelLogout }),
        ...(oauth.events === undefined ? {} : { events: oauth.events }),
      }),
    )
  }
  const router = security.router()
  for (const route of scenario.routes) {
    const handler: SecuredHandler = (request, response) => {
      if (route.cacheControl !== undefined) response.set('Cache-Control', route.cacheControl)
      response.json(
        route.respond({
          security: request.security,
          params: request.params as Record<string, string>,
          body: route.readsJson === true ? request.body : undefined,
        }),
      )
    }
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete'
    router[method](route.path, route.options, handler)
  }
  change(app, security)
  // the JSON body parser in front of the routes, as an Express application has it
  if (scenario.bodyLimit !== undefined) app.use(express.json({ limit: scenario.bodyLimit }))
  else if (scenario.routes.some((route) => route.readsJson === true)) app.use(express.json())
  app.use(router as RequestHandler)
  app.use(security.errorHandler)
  await mcp?.attach(app)
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
