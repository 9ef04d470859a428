import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import {
  MAX_FORWARDED_HOPS,
  parseTrustedProxies,
  resolveClientAddress,
  TrustedProxies,
} from './client-address.js'
import { formatIpAddress, parseIpAddress } from './ip-address.js'

const proxies = parseTrustedProxies(['10.0.0.0/8', '192.168.1.7', '2001:db8:ffff::/48', '::1'])
const resolve = (peerAddress: string | undefined, forwardedFor?: string | readonly string[]) =>
  resolveClientAddress({ peerAddress, forwardedFor, trustedProxies: proxies })

describe('IP address parsing', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:0102:0304', '1.2.3.4'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0db8::0001', '2001:db8::1'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['2001:db8:1:1:1:1:1:1', '2001:db8:1:1:1:1:1:1'],
    ['2001:db8::1:0', '2001:db8::1:0'],
    ['::10.0.0.1', '::a00:1'],
  ])('%s is %s', (input, canonical) => {
    const bytes = parseIpAddress(input)
    expect(bytes).toBeDefined()
    expect(formatIpAddress(bytes as Uint8Array)).toBe(canonical)
  })

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.-4',
    ' 1.2.3.4',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':::',
    '12345::1',
    'fe80::1%eth0',
    'g::1',
    '1.2.3.4::',
    '::1.2.3',
    'localhost',
    'unknown',
  ])('%j is not an address', (input) => {
    expect(parseIpAddress(input)).toBeUndefined()
  })
})

describe('TrustedProxies.parse', () => {
  it('accepts addresses and CIDR ranges of both families, folding IPv4-mapped entries', () => {
    const parsed = TrustedProxies.parse([
      '10.0.0.0/8',
      '10.1.2.3',
      '2001:db8::/32',
      '::ffff:172.16.0.0/108',
      ' ::1 ',
    ])
    expect(parsed.toJSON()).toEqual([
      '10.0.0.0/8',
      '10.1.2.3/32',
      '2001:db8::/32',
      '172.16.0.0/12',
      '::1/128',
    ])
    expect(parsed.containsAddress(parseIpAddress('172.31.255.255') as Uint8Array)).toBe(true)
    expect(parsed.containsAddress(parseIpAddress('172.32.0.0') as Uint8Array)).toBe(false)
    expect(TrustedProxies.parse([]).isEmpty).toBe(true)
  })

  it.each([
    ['10.0.0.0/33'],
    ['10.0.0.0/-1'],
    ['10.0.0.0/08'],
    ['10.0.0.0/'],
    ['10.0.0.0/8/8'],
    ['10.0.0.1/8'],
    ['2001:db8::1/32'],
    ['::/129'],
    ['::ffff:10.0.0.0/95'],
    ['example.com'],
    ['10.0.0.0/8 '.repeat(2)],
    [''],
  ])('refuses %j with a ConfigurationError', (entry) => {
    expect(() => parseTrustedProxies([entry])).toThrow(ConfigurationError)
  })

  it('refuses non-string entries and non-arrays', () => {
    expect(() => parseTrustedProxies([42 as unknown as string])).toThrow(ConfigurationError)
    expect(() => parseTrustedProxies('10.0.0.0/8' as unknown as string[])).toThrow(ConfigurationError)
  })
})

describe('resolveClientAddress', () => {
  it('is the direct peer by default, and ignores X-Forwarded-For without trusted proxies', () => {
    expect(resolveClientAddress({ peerAddress: '203.0.113.9', forwardedFor: '198.51.100.1' })).toBe(
      '203.0.113.9',
    )
    expect(resolveClientAddress({ peerAddress: '::ffff:203.0.113.9' })).toBe('203.0.113.9')
    expect(resolveClientAddress({ peerAddress: 'fe80::1%lo0' })).toBe('fe80::1')
    expect(resolveClientAddress({ peerAddress: undefined })).toBeUndefined()
    expect(resolveClientAddress({ peerAddress: '/tmp/socket' })).toBeUndefined()
  })

  it('ignores the header when the peer itself is not a trusted proxy', () => {
    expect(resolve('203.0.113.9', '10.0.0.1')).toBe('203.0.113.9')
    expect(resolve('203.0.113.9', '198.51.100.1, 10.0.0.2')).toBe('203.0.113.9')
  })

  it('returns the rightmost untrusted hop, never a spoofed leftmost entry', () => {
    // The client sent "1.1.1.1" itself; the trusted proxy appended the real client address.
    expect(resolve('10.0.0.5', '1.1.1.1, 198.51.100.23')).toBe('198.51.100.23')
    expect(resolve('10.0.0.5', '1.1.1.1, 198.51.100.23, 10.0.0.9, 192.168.1.7')).toBe('198.51.100.23')
    expect(resolve('::ffff:10.0.0.5', '8.8.8.8,198.51.100.23')).toBe('198.51.100.23')
  })

  it('joins several header lines in order', () => {
    expect(resolve('10.0.0.5', ['1.1.1.1, 198.51.100.23', '10.0.0.9'])).toBe('198.51.100.23')
    expect(resolve('10.0.0.5', ['1.1.1.1', '198.51.100.23, 10.0.0.9', ''])).toBe('198.51.100.23')
  })

  it('answers the leftmost address when every hop is trusted', () => {
    expect(resolve('10.0.0.5', '10.0.0.1, 10.0.0.2')).toBe('10.0.0.1')
    expect(resolve('10.0.0.5')).toBe('10.0.0.5')
    expect(resolve('10.0.0.5', '')).toBe('10.0.0.5')
  })

  it('stops at garbage and answers the last validated (trusted) address, never the garbage', () => {
    expect(resolve('10.0.0.5', 'evil, 198.51.100.23')).toBe('198.51.100.23')
    expect(resolve('10.0.0.5', '198.51.100.23, not-an-ip')).toBe('10.0.0.5')
    expect(resolve('10.0.0.5', '198.51.100.23, not-an-ip, 10.0.0.9')).toBe('10.0.0.9')
    expect(resolve('10.0.0.5', '198.51.100.23,,10.0.0.9')).toBe('10.0.0.9')
    expect(resolve('10.0.0.5', 'unknown')).toBe('10.0.0.5')
    expect(resolve('10.0.0.5', '198.51.100.23 10.0.0.9')).toBe('10.0.0.5')
    expect(resolve('10.0.0.5', `${'9'.repeat(100)}`)).toBe('10.0.0.5')
    expect(resolve('10.0.0.5', '1.2.3.4:99999')).toBe('10.0.0.5')
    expect(resolve('10.0.0.5', '[1.2.3.4]')).toBe('10.0.0.5')
  })

  it('accepts ports and bracketed IPv6 entries', () => {
    expect(resolve('10.0.0.5', '198.51.100.23:4711')).toBe('198.51.100.23')
    expect(resolve('10.0.0.5', '[2001:db8::42]:443')).toBe('2001:db8::42')
    expect(resolve('10.0.0.5', '[2001:db8::42]')).toBe('2001:db8::42')
  })

  it('walks IPv6 chains and trusted IPv6 ranges', () => {
    expect(resolve('::1', '2001:DB8:0::42, 2001:db8:ffff:1::1')).toBe('2001:db8::42')
    expect(resolve('2001:db8:ffff::9', '2001:db8:ffff:abcd::1')).toBe('2001:db8:ffff:abcd::1')
    expect(resolve('2001:db8:fffe::9', '2001:db8::42')).toBe('2001:db8:fffe::9')
  })

  it('bounds the walk over long trusted chains', () => {
    const chain = Array.from(
      { length: MAX_FORWARDED_HOPS + 5 },
      (_, index) => `10.0.${index >> 8}.${index & 255}`,
    )
    const answer = resolve('10.0.0.5', ['198.51.100.23', chain.join(',')])
    expect(answer).toBe(chain[chain.length - MAX_FORWARDED_HOPS])
  })
})
