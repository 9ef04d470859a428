import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { requiresScope, requiresTenantRole } from '@portcullis/core/authorization'
import { anonymous, required } from '@portcullis/core/policy'
import { alice, bob, staticBearer } from './mechanisms.js'
import type { AdapterScenario } from './scenario.js'

export const MCP_RESOURCE = 'https://api.example/mcp'
/** An issuer without a trailing slash, as many are (Google's): the metadata must publish it unchanged. */
export const MCP_AUTHORIZATION_SERVER = 'https://login.example'

/** The hosts the MCP world's endpoint answers for: the loopback names the suite reaches it by. */
export const MCP_ALLOWED_HOSTS = ['127.0.0.1', 'localhost']

/** Counts the mechanism's runs: one MCP request, read included, must run it once. */
function counted(mechanism: AuthenticationMechanism) {
  const counter = { calls: 0 }
  const wrapped: AuthenticationMechanism = {
    ...mechanism,
    authenticate(source) {
      counter.calls += 1
      return mechanism.authenticate(source)
    },
  }
  return { mechanism: wrapped, counter }
}

/**
 * The MCP world: an endpoint that needs a bearer token (scheme `app`, RFC 9728 metadata), and three
 * marked routes: anonymous `plans`, `reports` guarded by a scope, and the template
 * `tenant://{tenantId}/report` guarded by a tenant role (alice owns `acme`, bob views `globex`).
 */
export function mcpWorld() {
  const bearer = counted(
    staticBearer({ 'alice-token': { principal: alice }, 'bob-token': { principal: bob } }),
  )
  const scenario: AdapterScenario = {
    security: {
      mechanisms: [bearer.mechanism],
      authorizationResolver: ({ principal }) =>
        principal.id === 'alice'
          ? { scopes: ['reports:read'], tenants: new Map([['acme', ['owner']]]) }
          : { tenants: new Map([['globex', ['viewer']]]) },
      openapi: { info: { title: 'MCP conformance', version: '2.0.0' } },
    },
    mcp: {
      auth: required('bearer'),
      scheme: 'app',
      protectedResource: { resource: MCP_RESOURCE, authorizationServers: [MCP_AUTHORIZATION_SERVER] },
      allowedHosts: MCP_ALLOWED_HOSTS,
    },
    routes: [
      {
        method: 'GET',
        path: '/plans',
        options: { auth: anonymous(), mcpResource: 'plans', mcpResourceMimeType: 'application/json' },
        respond: () => [{ id: 'team', seats: 10 }],
      },
      {
        method: 'GET',
        path: '/reports',
        options: { auth: required(), guards: [requiresScope('reports:read')], mcpResource: 'reports' },
        respond: ({ security }) => ({ for: security.principal?.id }),
      },
      {
        method: 'GET',
        path: '/tenants/:tenantId/report',
        options: {
          auth: required(),
          guards: [requiresTenantRole({ roles: ['owner'] })],
          mcpResource: 'tenant-report',
          mcpResourceTemplate: 'tenant://{tenantId}/report',
        },
        respond: ({ params, security }) => ({ tenant: params.tenantId, for: security.principal?.id }),
      },
    ],
  }
  return { scenario, counter: bearer.counter }
}
