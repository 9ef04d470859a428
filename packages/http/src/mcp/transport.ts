import type { MCPDispatchResult } from '@portcullis/core/mcp'

const JSON_TYPE = 'application/json; charset=utf-8'
const SSE_TYPE = 'text/event-stream; charset=utf-8'

/** Transport-level JSON-RPC error (outside the JSON-RPC reserved range's method errors). */
export const TRANSPORT_ERROR = -32000

/** An answer of the MCP endpoint, for the adapter to write as it is. */
export interface MCPAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Absent for 202. One buffer, so the socket writes head and body without converting a string. */
  readonly body?: Buffer
}

/** A JSON-RPC error answer with `id: null` (transport refusals, unreadable bodies). */
export function rpcErrorAnswer(status: number, code: number, message: string, data?: unknown): MCPAnswer {
  const error = data === undefined ? { code, message } : { code, message, data }
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: null, error }))
  return { status, headers: { 'Content-Type': JSON_TYPE, 'Content-Length': String(body.byteLength) }, body }
}

/** Streamable HTTP answer: 202 with no body, otherwise JSON (or SSE when the client accepts only SSE). */
export function resultAnswer(result: MCPDispatchResult, accept: string | undefined): MCPAnswer {
  if (result.status === 202) return { status: 202, headers: { 'Cache-Control': 'no-store' } }
  const payload = JSON.stringify(result.body)
  const sse = wantsEventStream(accept)
  const body = Buffer.from(sse ? `event: message\ndata: ${payload}\n\n` : payload)
  return {
    status: result.status,
    headers: {
      'Cache-Control': 'no-store',
      'Content-Type': sse ? SSE_TYPE : JSON_TYPE,
      'Content-Length': String(body.byteLength),
    },
    body,
  }
}

const acceptDecisions = new Map<string, boolean>()

/** SSE only when the client lists `text/event-stream` and neither JSON nor a wildcard (lenient Accept). */
export function wantsEventStream(accept: string | undefined): boolean {
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

/** What the origin check reads from a request. */
export interface OriginInput {
  readonly host: string | undefined
  readonly origin: string | undefined
  /** The server's own address the request reached (`socket.localAddress`). */
  readonly localAddress: string | undefined
  /** Whether the application trusts a proxy in front of it (Express `trust proxy`, Fastify `trustProxy`). */
  readonly trustProxy: boolean
  /**
   * Set when the request came without a socket (a Web runtime handing over a bare `Request`: Bun, Deno,
   * Workers, `app.request`), so `localAddress` cannot be known. `peerAddress` is the client's address as
   * the application's client-address source tells it, if it can.
   */
  readonly socketless?: { readonly peerAddress: string | undefined }
}

/** The refusal of a socketless request the loopback check cannot judge: `allowedHosts` is needed. */
export const HOST_UNCHECKABLE =
  'Host not allowed: this server cannot see the address it was reached on, so it needs allowedHosts'

/**
 * DNS-rebinding and cross-origin protection: a `Host` outside `allowedHosts` is refused; without
 * `allowedHosts`, a server reached on a loopback address (and not configured to trust a proxy) refuses
 * non-loopback `Host` names. A request without a socket fails closed: without `allowedHosts` it is refused
 * (`HOST_UNCHECKABLE`) unless its client address is a loopback one, which means it came over loopback,
 * so the loopback check runs. A present `Origin` must be listed in `allowedOrigins` or name the request's
 * own host. Returns the reason to refuse, if any.
 */
export function originRefusal(input: OriginInput, policy: OriginPolicy): string | undefined {
  const host = input.host ?? ''
  if (policy.allowedHosts !== undefined) {
    const allowed = policy.allowedHosts.map((entry) => entry.toLowerCase())
    if (!allowed.includes(host.toLowerCase()) && !allowed.includes(hostname(host))) return 'Host not allowed'
  } else if (!input.trustProxy) {
    // Without a socket, only a loopback client shows how the request came: a client that names another
    // address (or none) may be a page on a rebound name reaching a loopback server: it is not let through.
    const socketless = input.socketless
    if (socketless !== undefined && !isLoopbackAddress(socketless.peerAddress)) return HOST_UNCHECKABLE
    const overLoopback = socketless !== undefined || isLoopbackAddress(input.localAddress)
    if (overLoopback && !LOOPBACK_HOSTS.has(hostname(host))) return 'Host not allowed'
  }
  const origin = input.origin
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
