import { ConfigurationError } from '../../errors/portcullis-error.js'
import { formatIpAddress, type IpBytes, inPrefix, parseIpAddress } from './ip-address.js'

interface Range {
  readonly network: IpBytes
  readonly prefix: number
}

const PREFIX = /^(0|[1-9]\d{0,2})$/

function badProxy(index: number, why: string): never {
  throw new ConfigurationError('local.invalid_trusted_proxy', `trustedProxies[${index}] ${why}`)
}

/**
 * Parsed trusted proxies: single addresses and CIDR ranges, IPv4 and IPv6. Build it once at startup with
 * `parseTrustedProxies`.
 */
export class TrustedProxies {
  readonly #ranges: readonly Range[]

  private constructor(ranges: readonly Range[]) {
    this.#ranges = ranges
  }

  /**
   * Parses `entries` (`10.0.0.7`, `10.0.0.0/8`, `2001:db8::/32`, `::ffff:10.0.0.0/104`). IPv4-mapped IPv6
   * entries are folded to IPv4. Throws `ConfigurationError` (`local.invalid_trusted_proxy`) for anything
   * that is not an address or a range, a prefix out of range, or a range with host bits set (a typo:
   * `10.0.0.1/8` is refused rather than silently read as `10.0.0.0/8`).
   */
  static parse(entries: readonly string[]): TrustedProxies {
    if (!Array.isArray(entries)) {
      throw new ConfigurationError(
        'local.invalid_trusted_proxy',
        'trustedProxies must be an array of strings',
      )
    }
    const ranges = entries.map((entry: unknown, index): Range => {
      if (typeof entry !== 'string') return badProxy(index, 'is not a string')
      const [address = '', prefixText, ...extra] = entry.trim().split('/')
      if (extra.length > 0) badProxy(index, 'has more than one "/"')
      const network = parseIpAddress(address)
      if (network === undefined) return badProxy(index, 'is not an IP address or CIDR range')
      const width = network.length * 8
      if (prefixText === undefined) return { network, prefix: width }
      if (!PREFIX.test(prefixText)) return badProxy(index, 'has a malformed prefix length')
      // An IPv4-mapped range (::ffff:a.b.c.d/n) was folded to IPv4: its prefix loses the 96 mapped bits.
      const mapped = address.includes(':') && network.length === 4
      const prefix = Number(prefixText) - (mapped ? 96 : 0)
      if (prefix < 0 || prefix > width) return badProxy(index, 'has a prefix length out of range')
      if (hasHostBits(network, prefix)) badProxy(index, 'has host bits set beyond its prefix length')
      return { network, prefix }
    })
    return new TrustedProxies(ranges)
  }

  /** Whether the parsed address lies in one of the trusted ranges. */
  containsAddress(address: IpBytes): boolean {
    return this.#ranges.some((range) => inPrefix(address, range.network, range.prefix))
  }

  /** Whether there is no trusted proxy at all (then the peer address is always the client). */
  get isEmpty(): boolean {
    return this.#ranges.length === 0
  }

  /** The ranges in canonical CIDR form. */
  toJSON(): string[] {
    return this.#ranges.map((range) => `${formatIpAddress(range.network)}/${range.prefix}`)
  }
}

function hasHostBits(network: IpBytes, prefix: number): boolean {
  for (let bit = prefix; bit < network.length * 8; bit++) {
    if ((((network[bit >> 3] as number) >> (7 - (bit & 7))) & 1) === 1) return true
  }
  return false
}

/** `TrustedProxies.parse` as a function. */
export function parseTrustedProxies(entries: readonly string[]): TrustedProxies {
  return TrustedProxies.parse(entries)
}

/** Input of `resolveClientAddress`. */
export interface ClientAddressInput {
  /** The direct TCP peer (`socket.remoteAddress`); an IPv6 zone (`%eth0`) is ignored. */
  readonly peerAddress: string | undefined
  /** Every `X-Forwarded-For` header, as one string or one string per header line. */
  readonly forwardedFor?: string | readonly string[] | undefined
  /** Proxies whose `X-Forwarded-For` entries are believed. Default none. */
  readonly trustedProxies?: TrustedProxies
}

/** At most this many `X-Forwarded-For` entries are examined; a longer trusted chain stops the walk. */
export const MAX_FORWARDED_HOPS = 32

/**
 * The client address for rate limits and security events, in canonical form (IPv4-mapped IPv6 as IPv4).
 *
 * - Without trusted proxies, or when the direct peer is not a trusted proxy, it is the direct peer and
 *   `X-Forwarded-For` is ignored (anybody can send that header).
 * - Behind trusted proxies, the header entries (all header lines joined in order, comma separated) are
 *   walked from the right: each trusted hop is skipped, and the first untrusted entry is the client. The
 *   leftmost entry is never believed just for being leftmost: a client can put anything there.
 * - An entry may be a bare address, `a.b.c.d:port`, `[v6]` or `[v6]:port`. A malformed or empty entry, or
 *   more than `MAX_FORWARDED_HOPS` trusted hops, stops the walk: the answer is the last address that was
 *   validated, i.e. the trusted proxy that forwarded the garbage. So garbage can never choose the key a
 *   request is counted under; at worst it shares the proxy's bucket.
 * - When every entry is trusted, the answer is the leftmost (still a trusted address).
 *
 * `undefined` only when the peer itself is missing or not an IP address (a Unix socket).
 */
export function resolveClientAddress(input: ClientAddressInput): string | undefined {
  const peerText = input.peerAddress
  if (typeof peerText !== 'string') return undefined
  const zone = peerText.indexOf('%')
  const peer = parseIpAddress(zone === -1 ? peerText : peerText.slice(0, zone))
  if (peer === undefined) return undefined
  const trusted = input.trustedProxies
  if (trusted === undefined || trusted.isEmpty || !trusted.containsAddress(peer)) return formatIpAddress(peer)

  const entries = forwardedEntries(input.forwardedFor)
  let current = peer
  for (let index = entries.length - 1, hops = 0; index >= 0; index--, hops++) {
    if (hops >= MAX_FORWARDED_HOPS) break
    const hop = parseForwardedEntry((entries[index] as string).trim())
    if (hop === undefined) break
    current = hop
    if (!trusted.containsAddress(hop)) break
  }
  return formatIpAddress(current)
}

function forwardedEntries(header: string | readonly string[] | undefined): string[] {
  if (header === undefined) return []
  const lines = typeof header === 'string' ? [header] : header
  const entries: string[] = []
  for (const line of lines) {
    if (typeof line !== 'string' || line.trim() === '') continue
    for (const entry of line.split(',')) entries.push(entry)
  }
  return entries
}

const BRACKETED = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/
const IPV4_WITH_PORT = /^([\d.]+):(\d{1,5})$/

function parseForwardedEntry(entry: string): IpBytes | undefined {
  if (entry === '' || entry.length > 64) return undefined
  const bracketed = BRACKETED.exec(entry)
  if (bracketed !== null) {
    if (!(bracketed[1] as string).includes(':') || !validPort(bracketed[2])) return undefined
    return parseIpAddress(bracketed[1] as string)
  }
  const withPort = IPV4_WITH_PORT.exec(entry)
  if (withPort !== null) {
    if (!validPort(withPort[2])) return undefined
    return parseIpAddress(withPort[1] as string)
  }
  return parseIpAddress(entry)
}

function validPort(port: string | undefined): boolean {
  return port === undefined || Number(port) <= 65_535
}
