// The rate-limit key of a client address against an oracle built on node:net: BlockList decides whether
// two addresses lie in one IPv6 network of the configured prefix (then, and only then, they share a key),
// and isIP decides what is an address at all (anything else shares the one unknown key).
import { BlockList, isIP } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  clientRateLimitKey,
  UNKNOWN_CLIENT_RATE_LIMIT_KEY,
} from '../../src/local-accounts/rate-limits/rate-limit-key.js'
import { anyText, outcome, RUNS } from './support.js'

const v6Groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
const full = (groups: readonly number[]) => groups.map((group) => group.toString(16)).join(':')
/** IPv4-mapped addresses (::ffff:0:0/96) are IPv4 clients; the IPv6 properties leave them out. */
const mapped = (groups: readonly number[]) =>
  groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff

/** The network of `address` with `prefix` bits, as the text BlockList takes (host bits zeroed). */
function networkOf(groups: readonly number[], prefix: number): string {
  const masked = groups.map((group, index) => {
    const keep = Math.max(0, Math.min(16, prefix - index * 16))
    return group & ((0xffff << (16 - keep)) & 0xffff)
  })
  return full(masked)
}

describe('clientRateLimitKey against node:net', () => {
  it('two IPv6 addresses share a key exactly when BlockList puts both in one /prefix network', () => {
    fc.assert(
      fc.property(
        v6Groups,
        v6Groups,
        fc.integer({ min: 0, max: 128 }),
        fc.boolean(),
        (a, b, prefix, near) => {
          // half the runs: b inside a's network, host bits random
          const other = near
            ? [
                ...networkOf(a, prefix)
                  .split(':')
                  .map((group) => Number.parseInt(group, 16)),
              ]
            : b
          const second = near
            ? other.map((group, index) => {
                const keep = Math.max(0, Math.min(16, prefix - index * 16))
                const mask = (0xffff << (16 - keep)) & 0xffff
                return (group & mask) | ((b[index] as number) & ~mask & 0xffff)
              })
            : b
          fc.pre(!mapped(a) && !mapped(second))
          const list = new BlockList()
          list.addSubnet(networkOf(a, prefix), prefix, 'ipv6')
          const oracle = list.check(full(second), 'ipv6')
          const same =
            clientRateLimitKey(full(a), { ipv6PrefixLength: prefix }) ===
            clientRateLimitKey(full(second), { ipv6PrefixLength: prefix })
          expect(same).toBe(oracle)
        },
      ),
      { numRuns: RUNS.pure },
    )
  })

  it('text is a client exactly when node:net takes it for an address; any other text shares the unknown key', () => {
    const zone = fc.stringMatching(/^[a-z0-9]{1,8}$/)
    const text = fc.oneof(
      anyText(80),
      v6Groups.map(full),
      fc.tuple(v6Groups, zone).map(([groups, id]) => `${full(groups)}%${id}`),
      v6Groups.map((groups) => `[${full(groups)}]`),
      fc.array(fc.nat(300), { minLength: 4, maxLength: 4 }).map((octets) => octets.join('.')),
    )
    fc.assert(
      fc.property(text, (input) => {
        const result = outcome(() => clientRateLimitKey(input))
        expect(result.ok).toBe(true)
        if (!result.ok) return
        // the oracle's reading: trimmed, brackets dropped, an IPv6 zone id dropped, then node:net's isIP
        let bare = input.trim()
        if (bare.startsWith('[') && bare.endsWith(']')) bare = bare.slice(1, -1)
        const zoneAt = bare.indexOf('%')
        if (zoneAt !== -1 && bare.slice(0, zoneAt).includes(':')) bare = bare.slice(0, zoneAt)
        const known = input.length <= 100 && (zoneAt === -1 ? isIP(bare) !== 0 : isIP(bare) === 6)
        expect(result.value === UNKNOWN_CLIENT_RATE_LIMIT_KEY).toBe(!known)
      }),
      { numRuns: RUNS.pure },
    )
  })
})
