import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/** A DNS resolver: every address of a host name. */
export type AddressLookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>

const SPECIAL_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]

const SPECIAL_V6: readonly [string, number][] = [
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
]

const special = new BlockList()
for (const [prefix, bits] of SPECIAL_V4) special.addSubnet(prefix, bits, 'ipv4')
for (const [prefix, bits] of SPECIAL_V6) special.addSubnet(prefix, bits, 'ipv6')

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/** The eight 16-bit groups of an IPv6 address (no zone), or undefined. */
function hextets(address: string): number[] | undefined {
  let text = address.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted?.[1] !== undefined) {
    const octets = dotted[1].split('.').map(Number)
    const [a = 0, b = 0, c = 0, d = 0] = octets
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length
  const groups = [...left, ...Array<string>(Math.max(zeros, 0)).fill('0'), ...right].map((g) =>
    Number.parseInt(g, 16),
  )
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined
}

/** The IPv4 address an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible IPv6 address carries, else undefined. */
function embeddedV4(address: string): string | undefined {
  const groups = hextets(address)
  if (groups === undefined || groups.slice(0, 5).some((g) => g !== 0)) return undefined
  if (groups[5] !== 0xffff && !(groups[5] === 0 && (groups[6] ?? 0) !== 0)) return undefined
  const hi = groups[6] ?? 0
  const lo = groups[7] ?? 0
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
}

/**
 * Whether an outbound fetch may connect to this address: only globally routable unicast addresses, plus
 * loopback when `allowLoopback` (development). IPv4-mapped IPv6 addresses are judged as their IPv4 address.
 */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const family = isIP(bare)
  if (family === 0) return false
  const v4 = family === 6 ? embeddedV4(bare) : bare
  if (v4 !== undefined) {
    if (allowLoopback && loopback.check(v4, 'ipv4')) return true
    return !special.check(v4, 'ipv4')
  }
  if (allowLoopback && loopback.check(bare, 'ipv6')) return true
  return !special.check(bare, 'ipv6')
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
 * not allowed (so a host cannot mix a public and a private answer).
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
