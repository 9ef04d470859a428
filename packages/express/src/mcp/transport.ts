import type { MCPDispatchResult } from '@portcullis/core/mcp'
import type { Request, Response } from 'express'

const JSON_TYPE = 'application/json; charset=utf-8'
const SSE_TYPE = 'text/event-stream; charset=utf-8'

/** Transport-level JSON-RPC error (outside the JSON-RPC reserved range's method errors). */
export const TRANSPORT_ERROR = -32000

export function sendRpcError(
  response: Response,
  status: number,
  code: number,
  message: string,
  data?: unknown,
) {
  const error = data === undefined ? { code, message } : { code, message, data }
  write(response, status, JSON_TYPE, JSON.stringify({ jsonrpc: '2.0', id: null, error }))
}

/** Writes a body directly (no ETag or content negotiation: every answer is unique and uncacheable). */
function write(response: Response, status: number, contentType: string, payload: string): void {
  // one buffer: the socket then writes head and body without converting a string on the way
  const body = Buffer.from(payload)
  response.statusCode = status
  response.setHeader('Content-Type', contentType)
  response.setHeader('Content-Length', body.byteLength)
  response.end(body)
}

/** Streamable HTTP answer: 202 with no body, otherwise JSON (or SSE when the client accepts only SSE). */
export function sendResult(request: Request, response: Response, result: MCPDispatchResult): void {
  response.setHeader('Cache-Control', 'no-store')
  if (result.status === 202) {
    response.status(202).end()
    return
  }
  const payload = JSON.stringify(result.body)
  if (wantsEventStream(request))
    write(response, result.status, SSE_TYPE, `event: message\ndata: ${payload}\n\n`)
  else write(response, result.status, JSON_TYPE, payload)
}

const acceptDecisions = new Map<string, boolean>()

/** SSE only when the client lists `text/event-stream` and neither JSON nor a wildcard (lenient Accept). */
function wantsEventStream(request: Request): boolean {
  const accept = request.headers.accept
  if (accept === undefined) return false
  let decision = acceptDecisions.get(accept)
  if (decision === undefined) {
    const types = accept.split(',').map((part) => (part.split(';')[0] ?? '').trim().toLowerCase())
    decision =
      types.includes('text/event-stream') &&
      !types.some((type) => type === 'application/json' || type === '*/*' || type === 'application/*')
    // clients send the same few Accept values again and again; a bounded memo spares the parsing
    if (acceptDecisions.size >= 64) acceptDecisions.clear()
    acceptDecisions.set(accept, decision)
  }
  return decision
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

function hostname(host: string): string {
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1
  if (bracket !== -1) return host.slice(0, bracket + 1).toLowerCase()
  return (host.split(':')[0] ?? '').toLowerCase()
}

function isLoopbackAddress(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1'
}

export interface OriginPolicy {
  readonly allowedOrigins?: readonly string[]
  readonly allowedHosts?: readonly string[]
}

/**
 * DNS-rebinding and cross-origin protection: a `Host` outside `allowedHosts` is refused; without
 * `allowedHosts`, a server reached on a loopback address (and not configured with `trust proxy`) refuses
 * non-loopback `Host` names. A present `Origin` must be listed in `allowedOrigins` or name the request's
 * own host. Returns the reason to refuse, if any.
 */
export function refusal(request: Request, policy: OriginPolicy): string | undefined {
  const host = request.headers.host ?? ''
  if (policy.allowedHosts !== undefined) {
    const allowed = policy.allowedHosts.map((entry) => entry.toLowerCase())
    if (!allowed.includes(host.toLowerCase()) && !allowed.includes(hostname(host))) return 'Host not allowed'
  } else if (
    !LOOPBACK_HOSTS.has(hostname(host)) &&
    isLoopbackAddress(request.socket.localAddress) &&
    !request.app.enabled('trust proxy')
  ) {
    return 'Host not allowed'
  }
  const origin = request.headers.origin
  if (origin === undefined) return undefined
  if (policy.allowedOrigins?.includes(origin) === true) return undefined
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    return 'Origin not allowed'
  }
  // scheme is not compared: behind a TLS-terminating proxy the app may see http for an https origin
  return parsed.host !== '' && parsed.host.toLowerCase() === host.toLowerCase()
    ? undefined
    : 'Origin not allowed'
}
