import { type IpBytes, inPrefix, parseIpAddress } from '../local-accounts/rate-limits/ip-address.js'

/**
 * IP address classification for the outbound-request policy, on core's one IP parser (`parseIpAddress`,
 * without `node:net`: core does not import network modules). An address is `public` only when it is
 * globally routable unicast; `loopback` is kept apart so tests and local development can allow it
 * explicitly; everything else (RFC 1918, CGNAT, link-local and cloud metadata, multicast, documentation,
 * reserved, ULA, unspecified, ...) is `private`.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'invalid'

type Range = readonly [network: IpBytes, prefix: number]

const range = (network: string, prefix: number): Range => [parseIpAddress(network) as IpBytes, prefix]
const within = (address: IpBytes, [network, prefix]: Range): boolean => inPrefix(address, network, prefix)

const V4_LOOPBACK = range('127.0.0.0', 8)
const V4_NOT_PUBLIC: readonly Range[] = [
  range('0.0.0.0', 8), // "this network"
  range('10.0.0.0', 8),
  range('100.64.0.0', 10), // carrier-grade NAT
  range('169.254.0.0', 16), // link-local, cloud metadata (169.254.169.254)
  range('172.16.0.0', 12),
  range('192.0.0.0', 24), // IETF protocol assignments
  range('192.0.2.0', 24), // documentation
  range('192.88.99.0', 24), // 6to4 relay anycast
  range('192.168.0.0', 16),
  range('198.18.0.0', 15), // benchmarking
  range('198.51.100.0', 24),
  range('203.0.113.0', 24),
  range('224.0.0.0', 4), // multicast
  range('240.0.0.0', 4), // reserved, broadcast
]

const V6_LOOPBACK = range('::1', 128)
const V6_NAT64 = range('64:ff9b::', 96)
const V6_GLOBAL_UNICAST = range('2000::', 3)
const V6_NOT_PUBLIC: readonly Range[] = [
  range('64:ff9b:1::', 48), // local-use NAT64
  range('100::', 64), // discard
  range('2001::', 23), // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  range('2001:db8::', 32), // documentation
  range('2002::', 16), // 6to4
  range('3fff::', 20), // documentation
  range('5f00::', 16), // SRv6 SIDs
]

function classifyV4(address: IpBytes): AddressClass {
  if (within(address, V4_LOOPBACK)) return 'loopback'
  return V4_NOT_PUBLIC.some((each) => within(address, each)) ? 'private' : 'public'
}

function classifyV6(address: IpBytes): AddressClass {
  if (within(address, V6_LOOPBACK)) return 'loopback'
  // The well-known NAT64 prefix carries an IPv4 address: judge that one (the parser already folded
  // IPv4-mapped ::ffff:a.b.c.d to IPv4).
  if (within(address, V6_NAT64)) return classifyV4(address.slice(12))
  // Only global unicast (2000::/3) can be public; this excludes ::, ::/96, ULA, link-local, multicast.
  if (!within(address, V6_GLOBAL_UNICAST)) return 'private'
  return V6_NOT_PUBLIC.some((each) => within(address, each)) ? 'private' : 'public'
}

/** Classifies one IP address as answered by a resolver or written in a URL (brackets allowed for IPv6). */
export function classifyAddress(text: string): AddressClass {
  if (typeof text !== 'string') return 'invalid'
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  const address = parseIpAddress(bare)
  if (address === undefined) return 'invalid'
  return address.length === 4 ? classifyV4(address) : classifyV6(address)
}

/** True when the URL hostname is an IP literal (WHATWG URLs canonicalize `0x7f.1` to `127.0.0.1`). */
export function isIpLiteral(hostname: string): boolean {
  return classifyAddress(hostname) !== 'invalid'
}
