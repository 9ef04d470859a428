import type { IncomingMessage } from 'node:http'
import { clientRateLimitKey, resolveClientAddress } from '@portcullis/core/local-accounts'
import type { ResolvedOptions } from './options.js'

/** What the limit decided for one registration request. */
export type RegistrationDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number }

/** Counts one registration request; rejects with the store's error when it cannot count. */
export type RegistrationLimit = (req: IncomingMessage) => Promise<RegistrationDecision>

const WINDOW_SECONDS = 60

/**
 * The registration limit: `perMinute` requests per client and fixed one-minute window, counted in the
 * shared `RateLimitStore` (every instance sharing the store shares the count). The client is the direct
 * peer, or behind `trustedProxies` the rightmost untrusted `X-Forwarded-For` hop, keyed by core's
 * `clientRateLimitKey`: IPv6 clients by their /64 (`ipv6PrefixLength`), IPv4 one by one, and a request
 * whose address is unknown under one shared key (the limit is never skipped).
 */
export function registrationLimit(
  options: NonNullable<ResolvedOptions['registration']>,
  clock: () => number,
): RegistrationLimit {
  const { rateLimits, perMinute, ipv6PrefixLength, trustedProxies } = options
  return async (req) => {
    const address = resolveClientAddress({
      peerAddress: req.socket.remoteAddress,
      forwardedFor: req.headers['x-forwarded-for'],
      trustedProxies,
    })
    const now = new Date(clock())
    const decision = await rateLimits.consume({
      key: `oauth-registration:${clientRateLimitKey(address, { ipv6PrefixLength })}`,
      limit: perMinute,
      windowSeconds: WINDOW_SECONDS,
      now,
    })
    if (decision.allowed) return { allowed: true }
    const seconds = Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000)
    return { allowed: false, retryAfterSeconds: Math.min(WINDOW_SECONDS, Math.max(1, seconds)) }
  }
}
