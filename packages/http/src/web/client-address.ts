// Where a Web-standard handler learns who its client is. A `Request` carries no socket: the runtime hands
// the address to the handler beside it (Bun's `server.requestIP(request)`, Deno's `info.remoteAddr`,
// `@hono/node-server`'s `env.incoming.socket`), or a proxy in front writes it into a header. Each source
// answers a canonical address (`resolveClientAddress`: IPv4-mapped IPv6 as IPv4) or `undefined`; per-address
// limits count every `undefined` under one shared key (`clientRateLimitKey`), so none is ever skipped.
import { ConfigurationError } from '@portcullis/core/errors'
import { parseTrustedProxies, resolveClientAddress } from '@portcullis/core/local-accounts'

/**
 * The client address of a Web request: `request`, and `env`, what the runtime passed beside it (the second
 * argument of a fetch handler: Bun's `server`, Deno's `info`, `@hono/node-server`'s `{ incoming }`).
 * `undefined` when it cannot tell.
 */
export type WebClientAddress = (request: Request, env: unknown) => string | undefined

const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/

/**
 * The address as canonical text, or undefined when it is no IP address. Brackets, a port after an IPv4
 * address or a bracketed IPv6 address, and an IPv6 zone id are dropped.
 */
function canonical(address: unknown): string | undefined {
  if (typeof address !== 'string' || address.length > 64) return undefined
  const text = address.trim()
  const bare = BRACKETED.exec(text)?.[1] ?? IPV4_WITH_PORT.exec(text)?.[1] ?? text
  return resolveClientAddress({ peerAddress: bare })
}

/**
 * The peer of `@hono/node-server` (and of any server that passes the same `{ incoming }` env): the
 * socket's `remoteAddress`. `undefined` elsewhere.
 */
export const nodeSocketClientAddress: WebClientAddress = (_request, env) => {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | null | undefined)
    ?.incoming
  return canonical(incoming?.socket?.remoteAddress)
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * The address in a header that the platform in front of the application sets itself, replacing whatever
 * the client sent: `CF-Connecting-IP` on Cloudflare Workers. A value that is not one IP address is
 * `undefined`. Only for such a header: a header a client can write would let it choose its own budget.
 */
export function headerClientAddress(name: string): WebClientAddress {
  if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
    throw new ConfigurationError('request.invalid_client_address_source', 'the header name is not a token', {
      option: 'clientAddress',
    })
  }
  return (request) => canonical(request.headers.get(name) ?? undefined)
}

/** Options of `forwardedClientAddress`. */
export interface ForwardedClientAddressOptions {
  /**
   * Further proxies (addresses and CIDR ranges) between the client and the proxy in front of the
   * application, whose `X-Forwarded-For` entries are skipped. Default none: the rightmost entry, written
   * by the proxy in front, is the client.
   */
  readonly trustedProxies?: readonly string[]
}

/**
 * The client address behind a proxy that appends the client's address to `X-Forwarded-For` (or sets the
 * header), for runtimes that show the application no socket (Next.js route handlers). The header is read
 * from the right: entries of `trustedProxies` are skipped and the first other one is the client; the
 * leftmost entry is never believed for being leftmost. Use it only when every request reaches the
 * application through that proxy: a client that can reach the application directly writes the header
 * itself. No header, or a malformed rightmost entry: `undefined`.
 */
export function forwardedClientAddress(options: ForwardedClientAddressOptions = {}): WebClientAddress {
  const trustedProxies = parseTrustedProxies(options.trustedProxies ?? [])
  return (request) => {
    const header = request.headers.get('x-forwarded-for')
    if (header === null) return undefined
    const entries = header.split(',')
    const nearest = (entries.pop() ?? '').trim()
    // The nearest entry stands for the proxy's peer: resolved as the peer, the rest walked from the right.
    const peer = canonical(nearest)
    if (peer === undefined) return undefined
    return resolveClientAddress({ peerAddress: peer, forwardedFor: entries.join(','), trustedProxies })
  }
}
