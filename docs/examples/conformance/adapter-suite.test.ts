// Any HTTP adapter runs the adapter suite with a factory that builds the scenario's application the way
// its users would, and starts it on loopback. Here: Fastify.
import { type AdapterScenario, adapterSuite, type ScenarioRoute } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import {
  accountEmailRoutes,
  activityRoutes,
  administrationRoutes,
  createAccountRoutes,
  createActiveOrganizationRoutes,
  createOrganizationDomainRoutes,
  createOrganizationRoutes,
  impersonationRoutes,
  localAccountRoutes,
  mcpEndpoint,
  passkeyRoutes,
  portcullis,
  portcullisServerOptions,
  totpRoutes,
} from '@portcullis/fastify'
import Fastify, { type FastifyInstance } from 'fastify'

function declare(app: FastifyInstance, route: ScenarioRoute) {
  app.route({
    method: route.method,
    url: route.path,
    config: route.options,
    // the handler does what the scenario says an application's handler does: read the JSON body,
    // set its own Cache-Control
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

async function fastifyApp(scenario: AdapterScenario) {
  // the server options a Portcullis app uses: URL errors as problem+json, every Portcullis id routable
  const app = Fastify(
    portcullisServerOptions(scenario.bodyLimit === undefined ? {} : { bodyLimit: scenario.bodyLimit }),
  )
  // where Fastify users can get it wrong: routes declared before the plugin
  for (const route of scenario.uncompiledRoutes ?? []) declare(app, route)
  await app.register(portcullis, scenario.security)
  // The local-account routes first: their CSRF check covers the account, passkey and TOTP routes.
  if (scenario.local !== undefined) localAccountRoutes(app, { local: scenario.local })
  if (scenario.accounts !== undefined) createAccountRoutes(app, scenario.accounts)
  if (scenario.passkeys !== undefined) passkeyRoutes(app, scenario.passkeys)
  if (scenario.totp !== undefined) totpRoutes(app, scenario.totp)
  if (scenario.accountEmail !== undefined) accountEmailRoutes(app, scenario.accountEmail)
  if (scenario.activity !== undefined) activityRoutes(app, scenario.activity)
  if (scenario.administration !== undefined) administrationRoutes(app, scenario.administration)
  if (scenario.impersonation !== undefined) impersonationRoutes(app, scenario.impersonation)
  if (scenario.organizations !== undefined) createOrganizationRoutes(app, scenario.organizations)
  if (scenario.organizationDomains !== undefined) {
    createOrganizationDomainRoutes(app, scenario.organizationDomains)
  }
  if (scenario.activeOrganization !== undefined) {
    createActiveOrganizationRoutes(app, scenario.activeOrganization)
  }
  if (scenario.mcp !== undefined) {
    const { scheme, auth, listing, protectedResource } = scenario.mcp
    mcpEndpoint(app, {
      scheme,
      ...(auth === undefined ? {} : { auth }),
      ...(listing === undefined ? {} : { listing }),
      ...(protectedResource === undefined ? {} : { protectedResource }),
    })
  }
  for (const route of scenario.routes) declare(app, route)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { url, close: () => app.close() }
}

// #region adapter-suite
describeConformance(adapterSuite(fastifyApp))
// #endregion adapter-suite
