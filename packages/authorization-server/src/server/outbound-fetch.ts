import { isIP } from 'node:net'
import { rootCertificates } from 'node:tls'
import { ConfigurationError } from '@portcullis/core/errors'
import { guardedLookup, isAllowedAddress, RefusedAddressError } from './address-guard.js'
import type { ResolvedOptions } from './options.js'

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
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (isIP(host) !== 0 && !isAllowedAddress(host, cimd.allowInsecureLoopback)) {
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
