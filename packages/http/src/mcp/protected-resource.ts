import type { RouteGuard } from '@portcullis/core/authorization'
import { ConfigurationError, type OptionsShape } from '@portcullis/core/errors'

/** RFC 9728 OAuth 2.0 Protected Resource Metadata for the MCP endpoint. */
export interface ProtectedResourceOptions {
  /** The endpoint's public URL (`https://api.example.com/mcp`): the `resource` identifier tokens target. */
  readonly resource: string
  /**
   * Issuer identifiers of the authorization servers that issue tokens for this resource, published
   * exactly as written (RFC 8414 section 3.3 and RFC 9728 compare them as strings: `https://a.example`
   * and `https://a.example/` are different issuers). Each must be an https URL (http only on a loopback
   * host) without userinfo, query or fragment.
   */
  readonly authorizationServers: readonly string[]
  readonly scopesSupported?: readonly string[]
  readonly resourceName?: string
  readonly resourceDocumentation?: string
  /**
   * RFC 9728 `dpop_bound_access_tokens_required`: set when the endpoint's mechanism is configured with
   * `dpop: { required: true }`, so clients obtain DPoP-bound tokens.
   */
  readonly dpopBoundAccessTokensRequired?: boolean
  /** RFC 9728 `dpop_signing_alg_values_supported`: the proof algorithms the endpoint accepts. */
  readonly dpopSigningAlgValuesSupported?: readonly string[]
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

const LOOPBACK_HOSTS = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/**
 * Checks an authorization server's issuer identifier (RFC 8414 section 2: https, no query or fragment;
 * http is allowed on a loopback host for local development) and returns it unchanged: a parsed URL's
 * `href` would add a trailing slash to `https://a.example`, which is another issuer.
 */
export function authorizationServerIssuer(value: string, field = 'authorizationServers'): string {
  const refuse = (rule: string) =>
    new ConfigurationError('mcp.protected_resource_invalid', `${field} ${rule}`, { option: field })
  if (value.length === 0 || value.length > 2048 || /[\s\\]/.test(value)) {
    throw refuse('must be a URL of at most 2048 characters, without whitespace or backslashes')
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw refuse('must be an absolute URL')
  }
  if (value.includes('?') || value.includes('#')) throw refuse('must not have a query or a fragment')
  if (url.username !== '' || url.password !== '') throw refuse('must not contain userinfo')
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.test(url.hostname)) {
    throw refuse('must use https (http only on a loopback host)')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must use https')
  return value
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
  const servers = options.authorizationServers.map((server, index) =>
    authorizationServerIssuer(server, `protectedResource.authorizationServers[${index}]`),
  )
  const suffix = resource.pathname === '/' ? '' : resource.pathname
  const metadataPath = `/.well-known/oauth-protected-resource${suffix}`
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: servers,
    bearer_methods_supported: ['header'],
  }
  if (options.scopesSupported !== undefined) document.scopes_supported = [...options.scopesSupported]
  if (options.resourceName !== undefined) document.resource_name = options.resourceName
  if (options.dpopSigningAlgValuesSupported !== undefined) {
    document.dpop_signing_alg_values_supported = [...options.dpopSigningAlgValuesSupported]
  }
  if (options.dpopBoundAccessTokensRequired === true) document.dpop_bound_access_tokens_required = true
  if (options.resourceDocumentation !== undefined) {
    document.resource_documentation = httpUrl(options.resourceDocumentation, 'resourceDocumentation').href
  }
  return Object.freeze({
    metadataPath,
    metadataUrl: new URL(metadataPath, resource.origin).href,
    document: Object.freeze(document),
  })
}

/** RFC 6750 `scope-token` characters: a scope that has others cannot be named in a challenge. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

/**
 * The scopes a guard list requires by `requiresScope(...)` guards listed directly in it (named in a 403
 * `insufficient_scope` challenge; scopes inside combinators are alternatives and are not named).
 */
export function scopesOf(guards: readonly RouteGuard[]): readonly string[] {
  const scopes: string[] = []
  for (const guard of guards) {
    const scope = guard.kind === 'guard' ? /^scope\((.*)\)$/s.exec(guard.key)?.[1] : undefined
    if (scope !== undefined && SCOPE_TOKEN.test(scope)) scopes.push(scope)
  }
  return Object.freeze(scopes)
}

/**
 * RFC 6750 / RFC 9728 challenges on the endpoint's own refusals: the `WWW-Authenticate` values to send
 * with a 401 or 403 that already carries `existing` ones. A 401 carries a Bearer challenge
 * (`resource_metadata` added to an existing Bearer challenge, or a new challenge appended next to other
 * schemes); a 403 carries `Bearer error="insufficient_scope"` with the `scope` the endpoint's guards
 * need. Undefined for any other status (nothing to add).
 */
export function endpointChallenges(
  status: number,
  existing: readonly string[],
  metadataUrl: string | undefined,
  scopes: readonly string[],
): string[] | undefined {
  if (status !== 401 && status !== 403) return undefined
  const values = [...existing]
  const metadata = metadataUrl === undefined ? undefined : `resource_metadata="${metadataUrl}"`
  if (status === 401) challenge401(values, metadata)
  else challenge403(values, metadata, scopes)
  return values
}

function challenge401(values: string[], metadata: string | undefined): void {
  const bearer = values.findIndex((value) => /^bearer\b/i.test(value))
  if (bearer === -1) values.push(metadata === undefined ? 'Bearer realm="mcp"' : `Bearer ${metadata}`)
  else if (metadata !== undefined && !/resource_metadata=/i.test(values[bearer] ?? '')) {
    values[bearer] = `${values[bearer]}${/^bearer\s*$/i.test(values[bearer] ?? '') ? ' ' : ', '}${metadata}`
  }
}

function challenge403(values: string[], metadata: string | undefined, scopes: readonly string[]): void {
  const parameters = [
    'error="insufficient_scope"',
    ...(scopes.length === 0 ? [] : [`scope="${scopes.join(' ')}"`]),
    ...(metadata === undefined ? [] : [metadata]),
  ]
  const bearer = values.findIndex((value) => /^bearer\b/i.test(value))
  const challenge = `Bearer ${parameters.join(', ')}`
  if (bearer === -1) values.push(challenge)
  else if (!/error=/i.test(values[bearer] ?? '')) {
    const existing = values[bearer] as string
    values[bearer] = `${existing}${/^bearer\s*$/i.test(existing) ? ' ' : ', '}${parameters.join(', ')}`
  }
}

const PROTECTED_RESOURCE_INVALID = 'mcp.protected_resource_invalid'

export const PROTECTED_RESOURCE_OPTIONS: OptionsShape<ProtectedResourceOptions> = {
  resource: { required: true, kind: 'string', code: PROTECTED_RESOURCE_INVALID },
  authorizationServers: {
    required: true,
    kind: 'array',
    elements: { kind: 'string' },
    code: PROTECTED_RESOURCE_INVALID,
  },
  scopesSupported: { kind: 'array', elements: { kind: 'string' } },
  resourceName: { kind: 'string' },
  resourceDocumentation: { kind: 'string', code: PROTECTED_RESOURCE_INVALID },
  dpopBoundAccessTokensRequired: { kind: 'boolean' },
  dpopSigningAlgValuesSupported: {
    kind: 'array',
    elements: {
      kind: 'string',
      check: (value) =>
        /^[A-Za-z0-9]{2,16}$/.test(value as string) ? undefined : 'must be an algorithm name',
    },
    code: PROTECTED_RESOURCE_INVALID,
  },
}
