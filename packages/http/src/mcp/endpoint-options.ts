import type { RouteGuard } from '@portcullis/core/authorization'
import { ConfigurationError, type OptionsShape } from '@portcullis/core/errors'
import type { AuthPolicy } from '@portcullis/core/policy'
import { PROTECTED_RESOURCE_OPTIONS, type ProtectedResourceOptions } from './protected-resource.js'
import { type PublishingOptions, SERVER_INFO_OPTIONS, SKILLS_OPTIONS } from './setup.js'
import type { OriginPolicy } from './transport.js'

/** The options of an adapter's MCP endpoint whose endpoint is a route of the security instance. */
export interface RouteEndpointOptions<C> extends PublishingOptions<C>, OriginPolicy {
  /** Path of the endpoint. Default `/mcp`. */
  readonly path?: string
  /** The endpoint's own policy. Default: the security instance's default policy. Each read is checked again by its route. */
  readonly auth?: AuthPolicy
  /** Guards of the endpoint itself; a refusal is 403 with `Bearer error="insufficient_scope"`. */
  readonly guards?: readonly RouteGuard[]
  /** Serves RFC 9728 metadata and points 401 challenges at it. */
  readonly protectedResource?: ProtectedResourceOptions
  /** Largest accepted request body. Default 1 MiB. */
  readonly maxBodyBytes?: number
}

const OPTION_INVALID = 'mcp.option_invalid'
const STRINGS = { kind: 'array', elements: { kind: 'string' } } as const

/** The shape `readOptions` checks `RouteEndpointOptions` against. */
export const ROUTE_ENDPOINT_OPTIONS: OptionsShape<RouteEndpointOptions<unknown>> = {
  path: { kind: 'string', code: OPTION_INVALID },
  auth: { kind: 'object', code: OPTION_INVALID },
  guards: { kind: 'array', code: OPTION_INVALID },
  protectedResource: {
    kind: 'object',
    shape: PROTECTED_RESOURCE_OPTIONS,
    code: 'mcp.protected_resource_invalid',
  },
  maxBodyBytes: { kind: 'number', code: OPTION_INVALID },
  allowedOrigins: STRINGS,
  allowedHosts: STRINGS,
  scheme: { kind: 'string', code: 'mcp.scheme_invalid' },
  serverInfo: { kind: 'object', shape: SERVER_INFO_OPTIONS, code: OPTION_INVALID },
  instructions: { kind: 'string' },
  openapi: { kind: 'function' },
  routes: { kind: ['iterable', 'function'] },
  skills: { kind: 'object', shape: SKILLS_OPTIONS },
  visible: { kind: 'function' },
  listing: {
    kind: 'string',
    code: OPTION_INVALID,
    check: (value) => (value === 'all' || value === 'readable' ? undefined : 'must be "all" or "readable"'),
  },
  pageSize: { kind: 'number', code: OPTION_INVALID },
  maxResourceBytes: { kind: 'number', code: OPTION_INVALID },
  readTimeoutMs: { kind: 'number', code: OPTION_INVALID },
}

/** The endpoint's path (default `/mcp`) and body limit (default 1 MiB), checked: a startup error otherwise. */
export function endpointBasics(options: {
  readonly path?: string | undefined
  readonly maxBodyBytes?: number | undefined
}): { readonly path: string; readonly maxBodyBytes: number } {
  const path = options.path ?? '/mcp'
  if (!path.startsWith('/')) throw new ConfigurationError(OPTION_INVALID, 'path must start with "/"')
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
  if (!(Number.isSafeInteger(maxBodyBytes) && maxBodyBytes > 0)) {
    throw new ConfigurationError(OPTION_INVALID, 'maxBodyBytes must be a positive integer')
  }
  return { path, maxBodyBytes }
}
