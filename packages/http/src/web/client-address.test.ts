import { describe, expect, it } from 'vitest'
import { forwardedClientAddress, headerClientAddress, nodeSocketClientAddress } from './client-address.js'

const request = (headers: Record<string, string> = {}) => new Request('https://app.example/', { headers })

describe('nodeSocketClientAddress', () => {
  it('reads the socket of the { incoming } env, canonical, and nothing else', () => {
    const env = (remoteAddress: unknown) => ({ incoming: { socket: { remoteAddress } } })
    expect(nodeSocketClientAddress(request(), env('203.0.113.7'))).toBe('203.0.113.7')
    expect(nodeSocketClientAddress(request(), env('::ffff:127.0.0.1'))).toBe('127.0.0.1')
    expect(nodeSocketClientAddress(request(), env('fe80::1%eth0'))).toBe('fe80::1')
    expect(nodeSocketClientAddress(request(), env(undefined))).toBeUndefined()
    expect(nodeSocketClientAddress(request(), env(42))).toBeUndefined()
    expect(nodeSocketClientAddress(request(), undefined)).toBeUndefined()
    expect(nodeSocketClientAddress(request(), { params: Promise.resolve({}) })).toBeUndefined()
    // a header never stands in for the socket
    expect(nodeSocketClientAddress(request({ 'x-forwarded-for': '203.0.113.7' }), {})).toBeUndefined()
  })
})

describe('headerClientAddress', () => {
  const cloudflare = headerClientAddress('CF-Connecting-IP')
  it('reads one address from the header, canonical', () => {
    expect(cloudflare(request({ 'cf-connecting-ip': '203.0.113.7' }), {})).toBe('203.0.113.7')
    expect(cloudflare(request({ 'cf-connecting-ip': '2001:DB8::0001' }), {})).toBe('2001:db8::1')
  })
  it.each(['', 'unknown', '203.0.113.7, 198.51.100.1', '999.1.1.1', 'x'.repeat(100)])(
    'answers undefined for %j',
    (value) => {
      expect(cloudflare(request({ 'cf-connecting-ip': value }), {})).toBeUndefined()
    },
  )
  it('answers undefined without the header, and refuses a name that is no header name', () => {
    expect(cloudflare(request(), {})).toBeUndefined()
    expect(() => headerClientAddress('cf connecting ip')).toThrow(
      expect.objectContaining({ code: 'request.invalid_client_address_source' }),
    )
  })
})

describe('forwardedClientAddress', () => {
  it('takes the rightmost entry, written by the proxy in front, and never a more-left one', () => {
    const source = forwardedClientAddress()
    expect(source(request({ 'x-forwarded-for': '203.0.113.7' }), {})).toBe('203.0.113.7')
    expect(source(request({ 'x-forwarded-for': '1.2.3.4, 203.0.113.7' }), {})).toBe('203.0.113.7')
    expect(source(request({ 'x-forwarded-for': '1.2.3.4, [2001:db8::1]:443' }), {})).toBe('2001:db8::1')
    expect(source(request({ 'x-forwarded-for': '1.2.3.4, 203.0.113.7:5000' }), {})).toBe('203.0.113.7')
  })
  it('skips further trusted proxies from the right', () => {
    const source = forwardedClientAddress({ trustedProxies: ['10.0.0.0/8'] })
    expect(source(request({ 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.1.1.1' }), {})).toBe('203.0.113.7')
    // every entry trusted: the leftmost, still a trusted address
    expect(source(request({ 'x-forwarded-for': '10.0.0.2, 10.1.1.1' }), {})).toBe('10.0.0.2')
    // garbage left of a trusted hop stops the walk at that hop
    expect(source(request({ 'x-forwarded-for': 'garbage, 10.1.1.1' }), {})).toBe('10.1.1.1')
  })
  it('answers undefined without the header or with a malformed nearest entry', () => {
    const source = forwardedClientAddress()
    expect(source(request(), {})).toBeUndefined()
    expect(source(request({ 'x-forwarded-for': '' }), {})).toBeUndefined()
    expect(source(request({ 'x-forwarded-for': '203.0.113.7, not-an-ip' }), {})).toBeUndefined()
  })
  it('refuses bad trusted proxies at startup', () => {
    expect(() => forwardedClientAddress({ trustedProxies: ['10.0.0.1/8'] })).toThrow(
      expect.objectContaining({ code: 'local.invalid_trusted_proxy' }),
    )
  })
})
