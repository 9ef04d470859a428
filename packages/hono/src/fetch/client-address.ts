// What the fetch form knows of its client and of itself. A `Request` carries no socket, so the client's
// address comes from the source the application names for its runtime (`clientAddress`), reading the
// request and what the runtime passed beside it. When none can tell, the form fails closed: per-address
// limits count such requests under one shared key, and the MCP endpoint must name its `allowedHosts`
// (its DNS-rebinding check cannot see that it was reached on a loopback address).
import { ConfigurationError } from '@portcullis/core/errors'
import { nodeSocketClientAddress, type WebClientAddress } from '@portcullis/http/web'
import type { Context } from 'hono'
import type { MCPEndpointOptions } from '../mcp/options.js'

/** The `clientAddress` of the fetch form as the Hono integration reads it, from the request's context. */
export function contextClientAddress(
  source: WebClientAddress = nodeSocketClientAddress,
): (c: Context) => string | undefined {
  if (typeof source !== 'function') {
    throw new ConfigurationError(
      'request.invalid_client_address_source',
      'clientAddress must be a function (request, env) => string | undefined',
      { option: 'createFetchSecurity.clientAddress' },
    )
  }
  return (c) => {
    const address = source(c.req.raw, c.env)
    return typeof address === 'string' ? address : undefined
  }
}

/**
 * The fetch form's MCP endpoint names the hosts it answers for: a runtime that hands the form a bare
 * `Request` (Next.js, Bun, Deno, Workers) does not show the address the server was reached on, so the
 * loopback DNS-rebinding check would silently be off.
 */
export function requireAllowedHosts(mcp: MCPEndpointOptions): void {
  const hosts = (mcp as { allowedHosts?: unknown }).allowedHosts
  if (Array.isArray(hosts) && hosts.length > 0) return
  throw new ConfigurationError(
    'mcp.allowed_hosts_required',
    'the fetch form cannot see the address its server was reached on, so its MCP endpoint needs ' +
      "allowedHosts (the Host names it answers for, e.g. ['localhost', '127.0.0.1'] in development, " +
      "['app.example'] in production) to refuse DNS-rebinding requests",
    { option: 'createFetchSecurity.mcp.allowedHosts' },
  )
}
