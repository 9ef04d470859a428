/**
 * IP address classification for the outbound-request policy, without `node:net` (core does not import
 * network modules). An address is `public` only when it is globally routable unicast; `loopback` is kept
 * apart so tests and local development can allow it explicitly; everything else (RFC 1918, CGNAT,
 * link-local and cloud metadata, multicast, documentation, reserved, ULA, unspecified, ...) is `private`.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'invalid'

const V4_PART = /^(?:0|[1-9]\d{0,2})$/

export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!V4_PART.test(part)) return undefined
    const octet = Number(part)
    if (octet > 255) return undefined
    value = value * 256 + octet
  }
  return value
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/

/** Parses an IPv6 address (no zone id, optional dotted IPv4 tail) into a 128-bit integer. */
export function parseIPv6(text: string): bigint | undefined {
  if (text.includes('%')) return undefined
  let head = text
  let tail: number[] = []
  const lastColon = text.lastIndexOf(':')
  if (text.includes('.', lastColon)) {
    const v4 = parseIPv4(text.slice(lastColon + 1))
    if (v4 === undefined) return undefined
    tail = [Math.floor(v4 / 65536), v4 % 65536]
    // Keep a trailing `::`, drop a single trailing `:` before the dotted tail.
    head = text.slice(0, lastColon + 1)
    if (!head.endsWith('::')) head = head.slice(0, -1)
  }
  const halves = head.split('::')
  if (halves.length > 2) return undefined
  const parse = (part: string): number[] | undefined => {
    if (part === '') return []
    const groups = part.split(':')
    const out: number[] = []
    for (const group of groups) {
      if (!HEX_GROUP.test(group)) return undefined
      out.push(Number.parseInt(group, 16))
    }
    return out
  }
  const left = parse(halves[0] ?? '')
  const right = halves.length === 2 ? parse(halves[1] ?? '') : []
  if (left === undefined || right === undefined) return undefined
  const given = left.length + right.length + tail.length
  let groups: number[]
  if (halves.length === 2) {
    if (given > 7) return undefined
    groups = [...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail]
  } else {
    if (given !== 8) return undefined
    groups = [...left, ...tail]
  }
  let value = 0n
  for (const group of groups) value = (value << 16n) | BigInt(group)
  return value
}

type V4Range = readonly [base: string, prefix: number]

const V4_LOOPBACK: V4Range = ['127.0.0.0', 8]
const V4_NOT_PUBLIC: readonly V4Range[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
]

function inV4(address: number, [base, prefix]: V4Range): boolean {
  const start = parseIPv4(base) as number
  const size = 2 ** (32 - prefix)
  return address >= start && address < start + size
}

function classifyV4(address: number): AddressClass {
  if (inV4(address, V4_LOOPBACK)) return 'loopback'
  return V4_NOT_PUBLIC.some((range) => inV4(address, range)) ? 'private' : 'public'
}

type V6Range = readonly [base: string, prefix: number]

function inV6(address: bigint, [base, prefix]: V6Range): boolean {
  const start = parseIPv6(base) as bigint
  const shift = BigInt(128 - prefix)
  return address >> shift === start >> shift
}

const V6_NOT_PUBLIC: readonly V6Range[] = [
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
]

function classifyV6(address: bigint): AddressClass {
  if (address === 1n) return 'loopback'
  // IPv4-mapped (::ffff:a.b.c.d) and the well-known NAT64 prefix carry an IPv4 address: judge that one.
  if (inV6(address, ['::ffff:0:0', 96]) || inV6(address, ['64:ff9b::', 96])) {
    return classifyV4(Number(address & 0xffffffffn))
  }
  // Only global unicast (2000::/3) can be public; this excludes ::, ::/96, ULA, link-local, multicast.
  if (!inV6(address, ['2000::', 3])) return 'private'
  return V6_NOT_PUBLIC.some((range) => inV6(address, range)) ? 'private' : 'public'
}

/** Classifies one IP address as answered by a resolver or written in a URL (brackets allowed for IPv6). */
export function classifyAddress(text: string): AddressClass {
  if (typeof text !== 'string') return 'invalid'
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  const v4 = parseIPv4(bare)
  if (v4 !== undefined) return classifyV4(v4)
  const v6 = bare.includes(':') ? parseIPv6(bare) : undefined
  return v6 === undefined ? 'invalid' : classifyV6(v6)
}

/** True when the URL hostname is an IP literal (WHATWG URLs canonicalize `0x7f.1` to `127.0.0.1`). */
export function isIpLiteral(hostname: string): boolean {
  return classifyAddress(hostname) !== 'invalid'
}
