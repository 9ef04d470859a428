import type { RouteGuard } from '@portcullis/core/authorization'
import type { OptionsShape } from '@portcullis/core/errors'
import type { MCPResourceRegistry } from '@portcullis/core/mcp'
import type { AuthPolicy } from '@portcullis/core/policy'
import {
  type OriginPolicy,
  type ProtectedResourceOptions,
  type ResourceRoutePath,
  ROUTE_ENDPOINT_OPTIONS,
} from '@portcullis/http/mcp'
import type { Request, RequestHandler } from 'express'
import type { Security } from '../security/create-security.js'
import type { ResourceApp, SetupOptions } from './setup.js'

export interface MCPEndpointOptions extends SetupOptions, OriginPolicy {
  /** Path of the endpoint, from where the router is mounted (mount it at the application root). Default `/mcp`. */
  readonly path?: string
  /**
   * The Portcullis security instance: its route registry supplies routes marked with the route option
   * form (validated as they are registered), its OpenAPI document is `<scheme>://openapi`, and the
   * endpoint itself becomes a secured route (its `auth` policy, problem+json errors).
   */
  readonly security?: Pick<Security, 'router' | 'routes' | 'openapi' | 'evaluation'>
  /**
   * Authentication of the endpoint itself, checked before any JSON-RPC processing: a policy
   * (`required('bearer')`, needs `security`; default: the security instance's default policy) or
   * Express middleware. Each resource read is additionally checked by the marked route's own policy
   * and guards, against the same verified authentication (no mechanism runs twice).
   */
  readonly auth?: AuthPolicy | RequestHandler | readonly RequestHandler[]
  /**
   * Guards of the endpoint itself (needs `security` and an authenticating `auth` policy). A refusal is 403
   * with `WWW-Authenticate: Bearer error="insufficient_scope"`, naming the scopes of the
   * `requiresScope(...)` guards listed here.
   */
  readonly guards?: readonly RouteGuard[]
  /** Serves RFC 9728 metadata and points 401 challenges at it. */
  readonly protectedResource?: ProtectedResourceOptions
  /** Observes errors the endpoint answers as a generic JSON-RPC error (a failed lazy attach). */
  readonly onError?: (error: unknown, request: Request) => void
  /** Largest accepted request body; a larger one is 413 problem+json `request.body_too_large`. Default 1 MiB. */
  readonly maxBodyBytes?: number
}

/** Express middleware serving the MCP endpoint; `attach(app)` publishes the app's marked routes. */
export interface MCPEndpoint extends RequestHandler {
  /**
   * Discovers the marked routes of `app` (call it after declaring routes), validates them and loads the
   * skills catalog. Every misconfiguration rejects with a `ConfigurationError`. Without an explicit call
   * the first request attaches to `req.app`.
   */
  attach(app: ResourceApp): Promise<MCPResourceRegistry<ResourceRoutePath>>
}

const OPTION_INVALID = 'mcp.option_invalid'

/** The options of `createMCPEndpoint`; values are checked further where they are used, at startup. */
export const MCP_ENDPOINT_OPTIONS: OptionsShape<MCPEndpointOptions> = {
  ...ROUTE_ENDPOINT_OPTIONS,
  security: { kind: 'object' },
  auth: { kind: ['object', 'function', 'array'], code: OPTION_INVALID },
  onError: { kind: 'function' },
}
