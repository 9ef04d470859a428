import { isIPv6 } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { checkIpv6PrefixLength, clientRateLimitKey, UNKNOWN_CLIENT_RATE_LIMIT_KEY } from './rate-limit-key.js'

const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
const v6Text = (words: readonly number[]) => words.map((word) => word.toString(16)).join(':')
/** Whether the first `bits` bits of two 8-group addresses are equal. */
function samePrefix(a: readonly number[], b: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const group = bit >> 4
    const shift = 15 - (bit & 15)
    if ((((a[group] as number) >> shift) & 1) !== (((b[group] as number) >> shift) & 1)) return false
  }
  return true
}
const isMappedOrV4Like = (words: readonly number[]) =>
  words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff

describe('clientRateLimitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['[::ffff:203.0.113.7]', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::9]', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['fe80::1%25', 'fe80::/64'],
    ['::1', '::/64'],
    [' 2001:db8::1 ', '2001:db8::/64'],
  ])('%j counts as %j', (input, key) => {
    expect(clientRateLimitKey(input)).toBe(key)
  })

  it.each([
    undefined,
    '',
    'unknown',
    'localhost',
    '/var/run/app.sock',
    '203.0.113.7:8080',
    '1.2.3.4%eth0',
    '01.2.3.4',
    '256.0.0.1',
    '2001:db8::1::2',
    '[2001:db8::1',
    '%eth0',
    `2001:db8::1%${'x'.repeat(200)}`,
  ])('%j has no address: the shared key', (input) => {
    expect(clientRateLimitKey(input)).toBe(UNKNOWN_CLIENT_RATE_LIMIT_KEY)
  })

  it('takes the IPv6 prefix length from the options', () => {
    expect(clientRateLimitKey('2001:db8:1:2:3:4:5:6', { ipv6PrefixLength: 48 })).toBe('2001:db8:1::/48')
    expect(clientRateLimitKey('2001:db8:1:2ab:3:4:5:6', { ipv6PrefixLength: 56 })).toBe('2001:db8:1:200::/56')
    expect(clientRateLimitKey('2001:db8:1:2:3:4:5:6', { ipv6PrefixLength: 60 })).toBe('2001:db8:1::/60')
    expect(clientRateLimitKey('2001:db8:1:2:3:4:5:6', { ipv6PrefixLength: 128 })).toBe(
      '2001:db8:1:2:3:4:5:6/128',
    )
    expect(clientRateLimitKey('2001:db8:1:2:3:4:5:6', { ipv6PrefixLength: 0 })).toBe('::/0')
    // The IPv6 prefix does not touch IPv4.
    expect(clientRateLimitKey('203.0.113.7', { ipv6PrefixLength: 0 })).toBe('203.0.113.7')
  })

  it.each([-1, 129, 64.5, Number.NaN, '64', null])('refuses the prefix length %j', (value) => {
    const run = () => clientRateLimitKey('2001:db8::1', { ipv6PrefixLength: value as number })
    expect(run).toThrow(ConfigurationError)
    try {
      checkIpv6PrefixLength(value, 'localAccounts.rateLimit.ipv6PrefixLength')
    } catch (error) {
      expect(error).toMatchObject({
        code: 'local.invalid_ipv6_prefix_length',
        option: 'localAccounts.rateLimit.ipv6PrefixLength',
      })
      return
    }
    throw new Error('no error')
  })

  it('property: two IPv6 addresses share a key exactly when they share the prefix', () => {
    fc.assert(
      fc.property(groups, groups, fc.integer({ min: 0, max: 128 }), (a, b, prefix) => {
        fc.pre(!isMappedOrV4Like(a) && !isMappedOrV4Like(b))
        const same =
          clientRateLimitKey(v6Text(a), { ipv6PrefixLength: prefix }) ===
          clientRateLimitKey(v6Text(b), { ipv6PrefixLength: prefix })
        expect(same).toBe(samePrefix(a, b, prefix))
      }),
      { numRuns: 1000 },
    )
  })

  it('property: rotating the low 64 bits of an address never yields a new budget', () => {
    fc.assert(
      fc.property(groups, groups, (network, host) => {
        fc.pre(!isMappedOrV4Like(network))
        const a = [...network.slice(0, 4), ...host.slice(4)]
        const b = [...network.slice(0, 4), ...host.slice(0, 4)]
        fc.pre(!isMappedOrV4Like(a) && !isMappedOrV4Like(b))
        const key = clientRateLimitKey(v6Text(a))
        expect(clientRateLimitKey(v6Text(b))).toBe(key)
        // The key itself is a valid network in canonical text.
        const [text, length] = key.split('/')
        expect(isIPv6(text as string)).toBe(true)
        expect(length).toBe('64')
      }),
      { numRuns: 1000 },
    )
  })

  it('property: IPv4 addresses are counted one by one, mapped or not', () => {
    const octets = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })
    fc.assert(
      fc.property(octets, octets, fc.integer({ min: 0, max: 128 }), (a, b, prefix) => {
        const options = { ipv6PrefixLength: prefix }
        const key = clientRateLimitKey(a.join('.'), options)
        expect(key).toBe(a.join('.'))
        expect(clientRateLimitKey(`::ffff:${a.join('.')}`, options)).toBe(key)
        expect(clientRateLimitKey(b.join('.'), options) === key).toBe(a.join('.') === b.join('.'))
      }),
      { numRuns: 1000 },
    )
  })

  it('property: any text gives a key without throwing, and text that is no address gives the shared key', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        const key = clientRateLimitKey(text)
        expect(typeof key).toBe('string')
        if (!/^[\s[]*[0-9A-Fa-f:.]/.test(text)) expect(key).toBe(UNKNOWN_CLIENT_RATE_LIMIT_KEY)
      }),
      { numRuns: 1000 },
    )
  })
})
