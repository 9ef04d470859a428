import type { ClientIdMetadataDocumentOptions } from '@portcullis/authorization-server'

/** Where the MCP endpoint is served (its URL is the resource the server's tokens are for). */
export const MCP_PATH = '/mcp'

// What the rest of the app names of its authorization server, without loading it (oidc-provider is
// loaded only when the server is composed).

/** Where the authorization server lives on the app's origin (its issuer is `{origin}/oauth`). */
export const OAUTH_PATH = '/oauth'
/** The mechanism name of its access tokens in route policy. */
export const OAUTH_MECHANISM = 'oauth'
/** Where the interaction sends a user to confirm it is them (`prompt=login`, `max_age`). */
export const OAUTH_REAUTHENTICATE_PATH = '/oauth-reauthenticate'
/** What an MCP client may ask for: each scope only narrows what the user may read anyway. */
export const MCP_SCOPES: Readonly<Record<string, string>> = Object.freeze({
  'resources:read': 'Read the resources this app publishes to agents, as you (your capabilities and tenants)',
  'reports:read': 'Read your usage reports',
})

/** The authorization server's settings the environment chooses. */
export interface AuthorizationServerSettings {
  /** RFC 7591 registration for clients without a metadata document. Default off. */
  readonly registration?: boolean
  /** How client metadata documents are fetched (development: loopback documents, a test CA). */
  readonly clientIdMetadataDocuments?: ClientIdMetadataDocumentOptions
}

/** The issuer of the app's authorization server and the one resource its tokens are for. */
export function oauthIdentifiers(publicOrigin: string): {
  readonly issuer: string
  readonly resource: string
} {
  return { issuer: `${publicOrigin}${OAUTH_PATH}`, resource: `${publicOrigin}${MCP_PATH}` }
}
