import { requiresTenantRole } from '@portcullis/core/authorization'
import { activeOrganizationOf, membershipResolver } from '@portcullis/core/organizations'
import { anyOf, required } from '@portcullis/core/policy'
import { MCP_ALLOWED_HOSTS, MCP_AUTHORIZATION_SERVER, MCP_RESOURCE } from './mcp-world.js'
import { type StaticCredential, staticBearer } from './mechanisms.js'
import { organizationBase } from './organization-world.js'
import type { AdapterScenario } from './scenario.js'

/**
 * The active-organization world: the organization base (local sessions, memberships through real
 * invitations), `membershipResolver` as the application's resolver, the active-organization routes, and
 * `GET /workspace`, which answers what route code reads: `activeOrganizationOf(snapshot)`.
 */
export function activeOrganizationWorld() {
  const base = organizationBase()
  const { local, organizations } = base
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const scenario: AdapterScenario = {
    security: {
      mechanisms: local.mechanisms,
      authorizationResolver: membershipResolver({ memberships: organizations }),
      openapi: { info: { title: 'Active organization', version: '1' } },
    },
    routes: [
      {
        method: 'GET',
        path: '/workspace',
        options: { auth: anyOf(...names) },
        respond: ({ security }) => ({
          active: activeOrganizationOf(security.snapshot) ?? null,
          tenants: security.snapshot.tenantIds,
        }),
      },
    ],
    local,
    activeOrganization: { local, memberships: organizations },
  }
  return { ...base, scenario }
}

/**
 * The MCP world over memberships: bearer tokens the case hands out to signed-up accounts, an endpoint
 * that needs one, `membershipResolver` as the resolver, and `tenant://{tenantId}/report` guarded by the
 * owner or admin role of that tenant, read from the membership store.
 */
export function organizationMcpWorld() {
  const base = organizationBase()
  const tokens: Record<string, StaticCredential> = {}
  const scenario: AdapterScenario = {
    security: {
      mechanisms: [...base.local.mechanisms, staticBearer(tokens)],
      authorizationResolver: membershipResolver({ memberships: base.organizations }),
      openapi: { info: { title: 'Organization MCP', version: '1' } },
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
        path: '/tenants/:tenantId/report',
        options: {
          auth: required('bearer'),
          guards: [requiresTenantRole({ roles: ['owner', 'admin'] })],
          mcpResource: 'tenant-report',
          mcpResourceTemplate: 'tenant://{tenantId}/report',
        },
        respond: ({ params, security }) => ({ tenant: params.tenantId, for: security.principal?.id }),
      },
    ],
    local: base.local,
  }
  /** A bearer token for the account (the MCP client's credential). */
  const tokenFor = (accountId: string): string => {
    const token = `token-${accountId.replace(/[^A-Za-z0-9]/g, '')}`
    tokens[token] = { principal: { id: accountId, kind: 'user' } }
    return token
  }
  return { ...base, scenario, tokenFor }
}
