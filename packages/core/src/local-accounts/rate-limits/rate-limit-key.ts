import { ConfigurationError } from '../../errors/portcullis-error.js'
import { formatIpAddress, type IpBytes, parseIpAddress } from './ip-address.js'

/** How client addresses are grouped into one rate-limit budget. */
export interface ClientRateLimitKeyOptions {
  /**
   * IPv6 clients are counted per network of this many leading bits (0 to 128). Default 64: one home
   * connection or cloud host owns a whole /64, so a longer prefix lets it rotate through 2^64 fresh
   * budgets. 128 counts each IPv6 address on its own. IPv4 addresses are always counted one by one.
   */
  readonly ipv6PrefixLength?: number
}

/** The default IPv6 grouping: one /64 is one client. */
export const DEFAULT_IPV6_PREFIX_LENGTH = 64

/**
 * The key every request whose client address is unknown or is not an IP address counts under. Such
 * requests share one budget: a missing address never skips a per-address limit.
 */
export const UNKNOWN_CLIENT_RATE_LIMIT_KEY = 'unknown'

/**
 * Checks an IPv6 prefix length: an integer from 0 to 128. Throws `ConfigurationError`
 * (`local.invalid_ipv6_prefix_length`) otherwise, naming `option` when given.
 */
export function checkIpv6PrefixLength(value: unknown, option = 'ipv6PrefixLength'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 128) {
    throw new ConfigurationError(
      'local.invalid_ipv6_prefix_length',
      `${option} must be an integer from 0 to 128 (the leading bits of an IPv6 address that name one client)`,
      { option },
    )
  }
  return value
}

/** The address bytes, or undefined for anything that is not one bare or bracketed IP address. */
function parseClientAddress(text: string): IpBytes | undefined {
  let address = text.trim()
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1)
  const zone = address.indexOf('%')
  // A zone id (`fe80::1%eth0`) names the local interface, not the client: it is dropped.
  if (zone !== -1) {
    if (!address.slice(0, zone).includes(':')) return undefined
    address = address.slice(0, zone)
  }
  return parseIpAddress(address)
}

function mask(bytes: IpBytes, prefix: number): IpBytes {
  const masked = new Uint8Array(bytes.length)
  for (let index = 0; index < bytes.length; index++) {
    const bits = Math.min(8, Math.max(0, prefix - index * 8))
    masked[index] = (bytes[index] as number) & ((0xff << (8 - bits)) & 0xff)
  }
  return masked
}

/**
 * The rate-limit key of a client address: what every per-address limit counts under.
 *
 * - IPv4 (and IPv4-mapped IPv6, `::ffff:a.b.c.d`): the address in dotted decimal (`203.0.113.7`).
 * - IPv6: its network of `ipv6PrefixLength` bits (default 64) in RFC 5952 text with the length
 *   (`2001:db8:1:2::/64`), so every address a client owns in its /64 shares one budget. A zone id and
 *   brackets are dropped.
 * - Anything else (`undefined`, empty, a Unix socket path, malformed text): `UNKNOWN_CLIENT_RATE_LIMIT_KEY`,
 *   one key shared by all such requests. The limit fails closed: it is never skipped.
 *
 * Pure; throws `ConfigurationError` (`local.invalid_ipv6_prefix_length`) only for a bad option.
 */
export function clientRateLimitKey(
  address: string | undefined,
  options: ClientRateLimitKeyOptions = {},
): string {
  const prefix =
    options.ipv6PrefixLength === undefined
      ? DEFAULT_IPV6_PREFIX_LENGTH
      : checkIpv6PrefixLength(options.ipv6PrefixLength)
  if (typeof address !== 'string' || address.length > 100) return UNKNOWN_CLIENT_RATE_LIMIT_KEY
  const bytes = parseClientAddress(address)
  if (bytes === undefined) return UNKNOWN_CLIENT_RATE_LIMIT_KEY
  if (bytes.length === 4) return formatIpAddress(bytes)
  return `${formatIpAddress(mask(bytes, prefix))}/${prefix}`
}
