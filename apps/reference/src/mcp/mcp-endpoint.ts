import { fileURLToPath } from 'node:url'
import { anyOf } from '@portcullis/core/policy'
import { createMCPEndpoint, type MCPEndpoint, type Security } from '@portcullis/express'
import { API_KEY_MECHANISM, WORKLOAD_MECHANISM } from '../api/mechanisms.js'
import { MCP_PATH, MCP_SCOPES, OAUTH_MECHANISM } from '../oauth-server/names.js'

export { MCP_PATH } from '../oauth-server/names.js'
export const MCP_SCHEME = 'reference'
/** The skills published as `skill://<name>/<path>` (the `skills/` folder of the app). */
export const SKILLS_DIRECTORY = fileURLToPath(new URL('../../skills', import.meta.url))

/**
 * `POST /mcp`: agents authenticate with an access token of the app's own authorization server (an MCP
 * client signed in as one of the users, found from the 401's `resource_metadata`), an API key or a
 * workload JWT (the endpoint's own policy); each
 * resource read then runs the marked route with the same credential, under that route's policy and guards.
 * Behind a public URL, `allowedHosts` pins the Host header (DNS rebinding); on loopback the adapter
 * already refuses non-loopback Host names.
 */
export function referenceMcpEndpoint(
  security: Pick<Security, 'router' | 'routes' | 'openapi' | 'evaluation'>,
  publicOrigin: string,
  /** The issuer of the app's authorization server, published in the protected-resource metadata. */
  authorizationServer: string,
): MCPEndpoint {
  const host = new URL(publicOrigin).hostname
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '[::1]'
  return createMCPEndpoint({
    path: MCP_PATH,
    security,
    auth: anyOf(OAUTH_MECHANISM, API_KEY_MECHANISM, WORKLOAD_MECHANISM),
    protectedResource: {
      resource: `${publicOrigin}${MCP_PATH}`,
      authorizationServers: [authorizationServer],
      scopesSupported: Object.keys(MCP_SCOPES),
      resourceName: 'Portcullis reference app',
    },
    scheme: MCP_SCHEME,
    serverInfo: { name: 'portcullis-reference', version: '0.0.0', title: 'Portcullis reference app' },
    instructions:
      'Read reference://capabilities first: it says who you are and which tenants you may read. Every read is checked with your own credential.',
    skills: { directory: SKILLS_DIRECTORY },
    ...(loopback ? {} : { allowedHosts: [new URL(publicOrigin).host] }),
  })
}
