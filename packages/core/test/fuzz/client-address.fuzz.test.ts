// Client addresses behind trusted proxies, against an oracle built on node:net (BlockList for trust,
// isIP for syntax) and the WHATWG URL parser (for canonical IPv6 text): the rightmost untrusted
// X-Forwarded-For hop, never a more-left one, never a trusted proxy while an untrusted hop is there.
import { BlockList, isIPv4, isIPv6 } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  MAX_FORWARDED_HOPS,
  parseTrustedProxies,
  resolveClientAddress,
  type TrustedProxies,
} from '../../src/local-accounts/rate-limits/client-address.js'
import { parseIpAddress } from '../../src/local-accounts/rate-limits/ip-address.js'
import { anyText, linearIn, nearValid, outcome, RUNS } from './support.js'

type Family = 'ipv4' | 'ipv6'
interface Address {
  readonly family: Family
  readonly bytes: readonly number[]
}

/** Canonical text per the oracle: dotted quad, or the WHATWG URL serialization of IPv6 (RFC 5952). */
function canonical(address: Address): string {
  if (address.family === 'ipv4') return address.bytes.join('.')
  const groups: string[] = []
  for (let index = 0; index < 16; index += 2) {
    groups.push((((address.bytes[index] ?? 0) << 8) | (address.bytes[index + 1] ?? 0)).toString(16))
  }
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1)
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address. */
function fold(address: Address): Address {
  const bytes = address.bytes
  const mapped =
    address.family === 'ipv6' &&
    bytes.slice(0, 10).every((byte) => byte === 0) &&
    bytes[10] === 0xff &&
    bytes[11] === 0xff
  return mapped ? { family: 'ipv4', bytes: bytes.slice(12) } : address
}

/** Oracle parse of a bare address: node:net decides syntax, the URL parser gives the bytes of IPv6. */
function oracleAddress(text: string): Address | undefined {
  if (text.includes('%')) return undefined // zones are not addresses here
  if (isIPv4(text)) return { family: 'ipv4', bytes: text.split('.').map(Number) }
  if (!isIPv6(text)) return undefined
  const host = new URL(`http://[${text}]/`).hostname.slice(1, -1)
  const [head = '', tail] = host.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups = [
    ...headGroups,
    ...new Array<string>(8 - headGroups.length - tailGroups.length).fill('0'),
    ...tailGroups,
  ]
  const bytes = groups.flatMap((group) => {
    const value = Number.parseInt(group, 16)
    return [value >> 8, value & 0xff]
  })
  return fold({ family: 'ipv6', bytes })
}

/** Oracle parse of one forwarded entry: bare, `v4:port`, `[v6]` or `[v6]:port`. */
function oracleEntry(raw: string): Address | undefined {
  const entry = raw.trim()
  if (entry === '' || entry.length > 64) return undefined
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(entry)
  if (bracketed !== null) {
    const [, inner = '', port] = bracketed
    if (!isIPv6(inner) || inner.includes('%') || (port !== undefined && Number(port) > 65_535))
      return undefined
    return oracleAddress(inner)
  }
  const withPort = /^(\d+\.\d+\.\d+\.\d+):(\d{1,5})$/.exec(entry)
  if (withPort !== null) return Number(withPort[2]) > 65_535 ? undefined : oracleAddress(withPort[1] ?? '')
  return oracleAddress(entry)
}

interface Network {
  readonly family: Family
  readonly bytes: readonly number[]
  readonly prefix: number
}

function masked(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((byte, index) => {
    const keep = Math.max(0, Math.min(8, prefix - index * 8))
    return byte & ((0xff << (8 - keep)) & 0xff)
  })
}

const networkArb: fc.Arbitrary<Network> = fc.oneof(
  fc
    .tuple(fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }), fc.integer({ min: 8, max: 32 }))
    .map(([bytes, prefix]) => ({ family: 'ipv4' as const, bytes: masked(bytes, prefix), prefix })),
  fc
    .tuple(fc.array(fc.nat(255), { minLength: 16, maxLength: 16 }), fc.integer({ min: 16, max: 128 }))
    .map(([bytes, prefix]) => ({ family: 'ipv6' as const, bytes: masked(bytes, prefix), prefix }))
    .filter((network) => fold(network).family === 'ipv6'),
)

/** How a configured range is written: canonical, or an IPv4 range as IPv4-mapped IPv6 with prefix + 96. */
const entryText = (network: Network, mappedForm: boolean): string =>
  network.family === 'ipv4' && mappedForm
    ? `::ffff:${network.bytes.join('.')}/${network.prefix + 96}`
    : `${canonical(network)}/${network.prefix}`

/** An address inside `network` (host bits random). */
const inside = (network: Network): fc.Arbitrary<Address> =>
  fc
    .array(fc.nat(255), { minLength: network.bytes.length, maxLength: network.bytes.length })
    .map((random) => {
      const host = random.map((byte, index) => {
        const keep = Math.max(0, Math.min(8, network.prefix - index * 8))
        const mask = (0xff << (8 - keep)) & 0xff
        return ((network.bytes[index] ?? 0) & mask) | (byte & ~mask & 0xff)
      })
      return fold({ family: network.family, bytes: host })
    })

const anyAddress: fc.Arbitrary<Address> = fc.oneof(
  fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }).map((bytes) => ({ family: 'ipv4' as const, bytes })),
  fc
    .array(fc.nat(255), { minLength: 16, maxLength: 16 })
    .map((bytes) => fold({ family: 'ipv6' as const, bytes })),
)

/** The spellings an entry may take on the wire. */
function spell(address: Address, style: number, port: number): string {
  if (address.family === 'ipv4') {
    switch (style % 4) {
      case 0:
        return address.bytes.join('.')
      case 1:
        return `${address.bytes.join('.')}:${port}`
      case 2:
        return `::ffff:${address.bytes.join('.')}`
      default:
        return `[::ffff:${address.bytes.join('.')}]:${port}`
    }
  }
  const text = canonical(address)
  switch (style % 4) {
    case 0:
      return text
    case 1:
      return `[${text}]:${port}`
    case 2:
      return `[${text.toUpperCase()}]`
    default: {
      const groups: string[] = []
      for (let index = 0; index < 16; index += 2) {
        groups.push(
          (((address.bytes[index] ?? 0) << 8) | (address.bytes[index + 1] ?? 0))
            .toString(16)
            .padStart(4, '0'),
        )
      }
      return groups.join(':')
    }
  }
}

/** How a socket reports its peer: bare, IPv4-mapped for IPv4 on a dual-stack socket, expanded IPv6. */
const peerSpelling = (address: Address, plain: boolean): string =>
  plain ? spell(address, 0, 0) : spell(address, address.family === 'ipv4' ? 2 : 3, 0)

interface Scenario {
  readonly networks: readonly Network[]
  readonly configured: readonly string[]
  readonly peer: string
  readonly hops: ReadonlyArray<{ readonly address: Address; readonly text: string }>
  readonly lines: readonly string[]
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .array(fc.tuple(networkArb, fc.boolean()), { minLength: 1, maxLength: 3 })
  .chain((pairs) => {
    const networks = pairs.map(([network]) => network)
    const configured = pairs.map(([network, mapped]) => entryText(network, mapped))
    const trustedAddress = fc.constantFrom(...networks).chain(inside)
    const hop = fc
      .tuple(fc.oneof(trustedAddress, anyAddress), fc.nat(3), fc.integer({ min: 0, max: 65_535 }), fc.nat(2))
      .map(([address, style, port, pad]) => ({
        address,
        text: `${' '.repeat(pad)}${spell(address, style, port)}`,
      }))
    return fc.record({
      networks: fc.constant(networks),
      configured: fc.constant(configured),
      peer: fc.tuple(trustedAddress, fc.boolean()).map(([address, plain]) => peerSpelling(address, plain)),
      hops: fc.array(hop, { maxLength: 8 }),
      lines: fc.constant([] as string[]),
    })
  })
  .chain((scenario) =>
    // the hops as one header, or split over several header lines (joined in order)
    fc.integer({ min: 1, max: 3 }).map((parts) => {
      const texts = scenario.hops.map((hop) => hop.text)
      const size = Math.ceil(texts.length / parts) || 1
      const lines: string[] = []
      for (let index = 0; index < texts.length; index += size)
        lines.push(texts.slice(index, index + size).join(','))
      return { ...scenario, lines }
    }),
  )

interface TrustOracle {
  readonly v4: BlockList
  readonly v6: BlockList
}

/**
 * node:net BlockLists, one per family: a BlockList also matches IPv4 addresses against IPv6 rules (as
 * IPv4-mapped), while mapped addresses are IPv4 here, so each family is checked against its own rules.
 */
function blockListOf(networks: readonly Network[]): TrustOracle {
  const oracle = { v4: new BlockList(), v6: new BlockList() }
  for (const network of networks) {
    ;(network.family === 'ipv4' ? oracle.v4 : oracle.v6).addSubnet(
      canonical(network),
      network.prefix,
      network.family,
    )
  }
  return oracle
}

const trustedBy = (list: TrustOracle, address: Address) =>
  address.family === 'ipv4'
    ? list.v4.check(canonical(address), 'ipv4')
    : list.v6.check(canonical(address), 'ipv6')

/** The documented walk, over the oracle's parse and trust decisions. */
function oracleResolve(
  list: TrustOracle,
  peerText: string,
  forwarded: string | readonly string[] | undefined,
): string | undefined {
  const peer = oracleAddress(peerText.split('%')[0] ?? '')
  if (peer === undefined) return undefined
  if (!trustedBy(list, peer)) return canonical(peer)
  const lines = forwarded === undefined ? [] : typeof forwarded === 'string' ? [forwarded] : forwarded
  const entries = lines.filter((line) => line.trim() !== '').flatMap((line) => line.split(','))
  let current = peer
  for (let index = entries.length - 1, hops = 0; index >= 0 && hops < MAX_FORWARDED_HOPS; index--, hops++) {
    const hop = oracleEntry(entries[index] ?? '')
    if (hop === undefined) break
    current = hop
    if (!trustedBy(list, hop)) break
  }
  return canonical(current)
}

function resolve(proxies: TrustedProxies, peer: string, forwarded: string | readonly string[] | undefined) {
  const result = outcome(() =>
    resolveClientAddress({ peerAddress: peer, forwardedFor: forwarded, trustedProxies: proxies }),
  )
  expect(result.ok).toBe(true)
  return result.ok ? result.value : undefined
}

describe('parseIpAddress under fuzzing', () => {
  it('accepts exactly what node:net accepts (no zones) and never throws', () => {
    const text = fc.oneof(
      anyText(50),
      nearValid(
        anyAddress.map((address) => spell(address, 0, 0)),
        [':', '::', '.', '0', 'ffff', '%eth0', '1.2.3.4'],
        '0123456789abcdefABCDEF:.',
      ),
    )
    fc.assert(
      fc.property(text, (value) => {
        const parsed = parseIpAddress(value)
        const expected = oracleAddress(value)
        expect(parsed === undefined).toBe(expected === undefined)
        if (parsed !== undefined && expected !== undefined) {
          expect([...parsed]).toEqual(expected.bytes)
          expect(parsed.length === 4).toBe(expected.family === 'ipv4')
        }
      }),
      { numRuns: RUNS.pure },
    )
  })
})

describe('resolveClientAddress under fuzzing', () => {
  it('agrees with the node:net oracle on every scenario', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const proxies = parseTrustedProxies(scenario.configured)
        const list = blockListOf(scenario.networks)
        const lines = scenario.lines.length === 1 ? scenario.lines[0] : scenario.lines
        expect(resolve(proxies, scenario.peer, lines)).toBe(oracleResolve(list, scenario.peer, lines))
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('answers the rightmost untrusted hop: never a more-left hop, never a trusted proxy while one exists', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const list = blockListOf(scenario.networks)
        const result = resolve(parseTrustedProxies(scenario.configured), scenario.peer, scenario.lines)
        const hops = scenario.hops.slice(-MAX_FORWARDED_HOPS)
        let rightmost = -1
        for (let index = hops.length - 1; index >= 0 && rightmost === -1; index--) {
          if (!trustedBy(list, (hops[index] as { address: Address }).address)) rightmost = index
        }
        const answered = oracleAddress(result ?? '')
        expect(answered).toBeDefined()
        if (rightmost === -1) {
          // every hop trusted: the leftmost hop, or the peer when there is no header (both trusted)
          const leftmost = hops[0]?.address ?? oracleAddress(scenario.peer)
          expect(result).toBe(leftmost === undefined ? undefined : canonical(leftmost))
          return
        }
        expect(result).toBe(canonical((hops[rightmost] as { address: Address }).address))
        expect(answered !== undefined && trustedBy(list, answered)).toBe(false)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('never lets an entry left of garbage choose the answer', () => {
    const withGarbage = fc
      .tuple(
        scenarioArb,
        fc.nat(),
        fc.constantFrom(
          '',
          'unknown',
          '1.2.3',
          '010.0.0.1',
          '[::1',
          '::1]:80',
          '1.2.3.4:99999',
          'x'.repeat(80),
        ),
      )
      .map(([scenario, at, garbage]) => {
        const texts = scenario.hops.map((hop) => hop.text)
        const index = texts.length === 0 ? 0 : at % (texts.length + 1)
        return {
          scenario,
          index,
          header: [...texts.slice(0, index), garbage, ...texts.slice(index)].join(','),
        }
      })
    fc.assert(
      fc.property(withGarbage, ({ scenario, index, header }) => {
        const result = resolve(parseTrustedProxies(scenario.configured), scenario.peer, header)
        const allowed = new Set([
          oracleResolve(blockListOf(scenario.networks), scenario.peer, []),
          ...scenario.hops.slice(index).map((hop) => canonical(hop.address)),
        ])
        expect(allowed.has(result)).toBe(true)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('never throws on arbitrary peers and headers, and answers canonical, bounded text', () => {
    const proxies = parseTrustedProxies(['0.0.0.0/0', '::/0'])
    const header = fc.oneof(anyText(80), fc.array(anyText(30), { maxLength: 3 }), fc.constant(undefined))
    fc.assert(
      fc.property(
        fc.oneof(
          anyText(45),
          anyAddress.map((address) => spell(address, 0, 0)),
        ),
        header,
        (peer, forwarded) => {
          const result = resolve(proxies, peer, forwarded)
          if (result === undefined) return
          expect(result.length).toBeLessThanOrEqual(39)
          const parsed = oracleAddress(result)
          expect(parsed === undefined ? undefined : canonical(parsed)).toBe(result)
        },
      ),
      { numRuns: RUNS.pure },
    )
  })

  it('walks a megabyte header in bounded time', () => {
    const proxies = parseTrustedProxies(['10.0.0.0/8'])
    const header = `${'10.1.2.3, '.repeat(100_000)}10.9.9.9`
    expect(linearIn(header, () => resolve(proxies, '10.0.0.1', header))).toBe('10.1.2.3')
  })
})

describe('parseTrustedProxies under fuzzing', () => {
  it('refuses malformed entries with a typed error only, and accepts every canonical range', () => {
    const entries = fc.array(
      fc.oneof(
        networkArb.map((network) => entryText(network, false)),
        nearValid(
          networkArb.map((network) => entryText(network, false)),
          ['/', '/33', '/129', '::', '.'],
          '0123456789abcdef:./',
        ),
        anyText(30),
      ),
      { maxLength: 4 },
    )
    fc.assert(
      fc.property(entries, (list) => {
        const result = outcome(() => parseTrustedProxies(list))
        if (!result.ok) expect(result.error.code).toBe('local.invalid_trusted_proxy')
        else for (const range of result.value.toJSON()) expect(range).toMatch(/^[0-9a-f.:]+\/\d{1,3}$/)
      }),
      { numRuns: RUNS.structured },
    )
  })
})
