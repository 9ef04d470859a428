import { lookup as dnsLookup } from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import { rootCertificates } from 'node:tls'
import { ConfigurationError } from '@portcullis/core/errors'
import { classifyAddress } from '@portcullis/core/oidc'
import type { AddressLookup, ResolvedOptions } from './options.js'

export type { AddressLookup } from './options.js'

/**
 * Whether an outbound fetch may connect to this address, by core's outbound address policy
 * (`classifyAddress`, the one IP classifier of the project): only globally routable unicast addresses,
 * plus loopback when `allowLoopback` (development). IPv4-mapped and NAT64 IPv6 addresses are judged as
 * the IPv4 address they carry; an address with a zone id is refused.
 */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(address)
  return kind === 'public' || (kind === 'loopback' && allowLoopback)
}

/** The error of a refused address (the host name is named, never the request's other parts). */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_PORTCULLIS_REFUSED_ADDRESS'
  constructor(hostname: string) {
    super(`${hostname} resolves to an address outbound fetches may not reach`)
  }
}

const defaultLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

/**
 * A `net` lookup function for outbound connections that refuses a host when ANY of its addresses is
 * not allowed (so a host cannot mix a public and a private answer). It runs on the connection's own
 * path, so the address checked is the address connected to (no second resolution to rebind).
 */
export function guardedLookup(
  allowLoopback: boolean,
  resolve: AddressLookup = defaultLookup,
): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === 'function' ? (options as typeof callback) : callback
    const all = typeof options === 'object' && options?.all === true
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return cb(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }))
        if (!addresses.every(({ address }) => isAllowedAddress(address, allowLoopback))) {
          return cb(new RefusedAddressError(hostname))
        }
        const list = addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))
        const first = list[0] as { address: string; family: number }
        return all ? cb(null, list) : cb(null, first.address, first.family)
      },
      (error: unknown) => cb(error),
    )
  }) as LookupFunction
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

interface DispatcherConstructor {
  new (options: Record<string, unknown>): { close(): Promise<void> }
}

/**
 * The undici `Agent` class behind Node's own `fetch` (the global dispatcher's constructor), so the
 * guarded dispatcher needs no undici dependency of its own (oidc-provider finds it the same way).
 */
function agentClass(): DispatcherConstructor {
  void Response
  const global = globalThis as Record<symbol, { constructor: DispatcherConstructor } | undefined>
  const dispatcher =
    global[Symbol.for('undici.globalDispatcher.2')] ?? global[Symbol.for('undici.globalDispatcher.1')]
  if (dispatcher === undefined || dispatcher.constructor.name !== 'Agent') {
    // A replaced global dispatcher (a proxy agent, a mock) is not an Agent the guard can be built from.
    throw new ConfigurationError(
      'authorization_server.outbound_fetch_unavailable',
      "the global fetch dispatcher is not undici's Agent: the outbound address guard cannot be set up",
    )
  }
  return dispatcher.constructor
}

/** The provider's `fetch`: every outbound request (client id metadata documents, client `jwks_uri`). */
export interface OutboundFetch {
  readonly fetch: Fetch
  close(): Promise<void>
}

/**
 * Outbound fetches bounded in time (the whole exchange, body included), never following redirects (the
 * provider asks for `redirect: 'manual'`; any other mode is forced to it) and connecting only to globally
 * routable addresses (loopback too with `allowInsecureLoopback`), checked on every DNS answer and on
 * address literals.
 */
export function outboundFetch(cimd: ResolvedOptions['cimd']): OutboundFetch {
  const Agent = agentClass()
  const agent = new Agent({
    connect: {
      lookup: guardedLookup(cimd.allowInsecureLoopback, cimd.lookup),
      ...(cimd.ca.length > 0 ? { ca: [...rootCertificates, ...cimd.ca] } : {}),
    },
  })
  const fetch: Fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input)
    const host = url.hostname
    if (classifyAddress(host) !== 'invalid' && !isAllowedAddress(host, cimd.allowInsecureLoopback)) {
      throw new RefusedAddressError(host)
    }
    return globalThis.fetch(input, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(cimd.fetchTimeoutMs),
      dispatcher: agent,
    } as RequestInit)
  }
  return { fetch, close: () => agent.close() }
}
