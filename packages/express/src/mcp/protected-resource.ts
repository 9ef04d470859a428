import { ConfigurationError } from '@portcullis/core/errors'
import type { Response } from 'express'

/** RFC 9728 OAuth 2.0 Protected Resource Metadata for the MCP endpoint. */
export interface ProtectedResourceOptions {
  /** The endpoint's public URL (`https://api.example.com/mcp`): the `resource` identifier tokens target. */
  readonly resource: string
  /** Issuer URLs of the authorization servers that issue tokens for this resource. */
  readonly authorizationServers: readonly string[]
  readonly scopesSupported?: readonly string[]
  readonly resourceName?: string
  readonly resourceDocumentation?: string
}

export interface ProtectedResource {
  /** Path (from the application root) the metadata document is served at. */
  readonly metadataPath: string
  readonly metadataUrl: string
  readonly document: Readonly<Record<string, unknown>>
}

function httpUrl(value: string, field: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigurationError('mcp.protected_resource_invalid', `${field} must be an absolute URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError('mcp.protected_resource_invalid', `${field} must be an http(s) URL`)
  }
  if (url.hash !== '')
    throw new ConfigurationError('mcp.protected_resource_invalid', `${field} must not have a fragment`)
  return url
}

/**
 * Builds the metadata document and its well-known location: for `https://host/mcp` it is
 * `https://host/.well-known/oauth-protected-resource/mcp` (RFC 9728 section 3.1).
 */
export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const resource = httpUrl(options.resource, 'protectedResource.resource')
  if (options.authorizationServers.length === 0) {
    throw new ConfigurationError('mcp.protected_resource_invalid', 'list at least one authorization server')
  }
  const servers = options.authorizationServers.map((server) => httpUrl(server, 'authorizationServers').href)
  const suffix = resource.pathname === '/' ? '' : resource.pathname
  const metadataPath = `/.well-known/oauth-protected-resource${suffix}`
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: servers,
    bearer_methods_supported: ['header'],
  }
  if (options.scopesSupported !== undefined) document.scopes_supported = [...options.scopesSupported]
  if (options.resourceName !== undefined) document.resource_name = options.resourceName
  if (options.resourceDocumentation !== undefined) {
    document.resource_documentation = httpUrl(options.resourceDocumentation, 'resourceDocumentation').href
  }
  return Object.freeze({
    metadataPath,
    metadataUrl: new URL(metadataPath, resource.origin).href,
    document: Object.freeze(document),
  })
}

/**
 * Makes every 401 written on `response` carry a Bearer challenge: `resource_metadata` is added to an
 * existing Bearer challenge, or a new challenge is appended next to other schemes.
 */
export function decorateUnauthorized(response: Response, metadataUrl: string | undefined): void {
  const original = response.writeHead
  const challenge =
    metadataUrl === undefined ? 'Bearer realm="mcp"' : `Bearer resource_metadata="${metadataUrl}"`
  const patched = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    const status = args[0]
    if (status === 401 && !response.headersSent) {
      const existing = response.getHeader('www-authenticate')
      const values = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)]
      const bearer = values.findIndex((value) => /^bearer\b/i.test(value))
      if (bearer === -1) values.push(challenge)
      else if (metadataUrl !== undefined && !/resource_metadata=/i.test(values[bearer] ?? '')) {
        values[bearer] =
          `${values[bearer]}${/^bearer\s*$/i.test(values[bearer] ?? '') ? ' ' : ', '}resource_metadata="${metadataUrl}"`
      }
      response.setHeader('WWW-Authenticate', values.length === 1 ? (values[0] as string) : values)
    }
    return original.apply(this, args)
  } as Response['writeHead']
  response.writeHead = patched
}
