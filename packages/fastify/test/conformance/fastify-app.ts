import type { AdapterApp, AdapterScenario, ScenarioRoute } from '@portcullis/conformance/adapters'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  accountEmailRoutes,
  activityRoutes,
  administrationRoutes,
  createAccountRoutes,
  createActiveOrganizationRoutes,
  createOAuthRoutes,
  createOrganizationDomainRoutes,
  createOrganizationRoutes,
  currentLocalSession,
  impersonationRoutes,
  localAccountRoutes,
  mcpEndpoint,
  passkeyRoutes,
  portcullis,
  portcullisServerOptions,
  totpRoutes,
} from '../../src/index.js'

/** Builds the scenario's application the way a Fastify user would, and starts it on loopback. */
export async function fastifyApp(
  scenario: AdapterScenario,
  change: (app: FastifyInstance) => void | Promise<void> = () => {},
  plugin: { readonly errorHandler?: boolean } = {},
): Promise<AdapterApp> {
  // the server options a Portcullis app uses: URL errors as problem+json, every Portcullis id routable
  const app = Fastify(
    portcullisServerOptions(scenario.bodyLimit === undefined ? {} : { bodyLimit: scenario.bodyLimit }),
  )
  // the mistake the uncompiled routes stand for: declared before the plugin is registered
  for (const route of scenario.uncompiledRoutes ?? []) declare(app, route)
  await app.register(portcullis, { ...scenario.security, ...plugin })
  if (scenario.local !== undefined) localAccountRoutes(app, { local: scenario.local })
  if (scenario.accounts !== undefined) createAccountRoutes(app, scenario.accounts)
  if (scenario.passkeys !== undefined) passkeyRoutes(app, scenario.passkeys)
  if (scenario.totp !== undefined) totpRoutes(app, scenario.totp)
  if (scenario.accountEmail !== undefined) accountEmailRoutes(app, scenario.accountEmail)
  if (scenario.activity !== undefined) activityRoutes(app, scenario.activity)
  if (scenario.administration !== undefined) administrationRoutes(app, scenario.administration)
  if (scenario.impersonation !== undefined) impersonationRoutes(app, scenario.impersonation)
  if (scenario.organizations !== undefined) createOrganizationRoutes(app, scenario.organizations)
  if (scenario.organizationDomains !== undefined)
    createOrganizationDomainRoutes(app, scenario.organizationDomains)
  if (scenario.activeOrganization !== undefined)
    createActiveOrganizationRoutes(app, scenario.activeOrganization)
  const { mcp } = scenario
  if (mcp !== undefined) {
    mcpEndpoint(app, {
      scheme: mcp.scheme,
      ...(mcp.auth === undefined ? {} : { auth: mcp.auth }),
      ...(mcp.listing === undefined ? {} : { listing: mcp.listing }),
      ...(mcp.protectedResource === undefined ? {} : { protectedResource: mcp.protectedResource }),
      ...(mcp.allowedHosts === undefined ? {} : { allowedHosts: mcp.allowedHosts }),
    })
  }
  const { oauth } = scenario
  if (oauth !== undefined) {
    createOAuthRoutes(app, {
      lifecycle: oauth.lifecycle,
      auth: oauth.auth,
      currentSession: currentLocalSession(app.portcullis, oauth.auth),
      signIn: async ({ accountId, identity }, _request, reply) => {
        const { setCookie, body } = await oauth.signIn(accountId, identity)
        reply.header('set-cookie', setCookie)
        return body
      },
      ...(oauth.backchannelLogout === undefined ? {} : { backchannelLogout: oauth.backchannelLogout }),
      ...(oauth.events === undefined ? {} : { events: oauth.events }),
    })
  }
  for (const route of scenario.routes) declare(app, route)
  await change(app)
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    return { url, close: () => app.close() }
  } catch (error) {
    await app.close()
    throw error
  }
}

function declare(app: FastifyInstance, route: ScenarioRoute): void {
  app.route({
    method: route.method,
    url: route.path,
    config: route.options,
    handler: async (request, reply) => {
      if (route.cacheControl !== undefined) reply.header('cache-control', route.cacheControl)
      return route.respond({
        security: request.security,
        params: request.params as Record<string, string>,
        body: route.readsJson === true ? request.body : undefined,
      })
    },
  })
}
