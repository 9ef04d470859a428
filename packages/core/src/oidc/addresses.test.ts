import { describe, expect, it } from 'vitest'
import { formatIpAddress, parseIpAddress } from '../local-accounts/rate-limits/ip-address.js'
import { classifyAddress } from './addresses.js'

describe('classifyAddress', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['[2606:4700::1]', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'private'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'private'],
    ['255.255.255.255', 'private'],
    ['224.0.0.251', 'private'],
    ['192.0.2.1', 'private'],
    ['198.18.0.1', 'private'],
    ['::', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'private'],
    ['::ffff:a9fe:a9fe', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'private'],
    ['ff02::1', 'private'],
    ['2001:db8::1', 'private'],
    ['2001::1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['::127.0.0.1', 'private'],
    ['fe80::1%eth0', 'invalid'],
    ['1.2.3', 'invalid'],
    ['01.2.3.4', 'invalid'],
    ['256.1.1.1', 'invalid'],
    ['1::2::3', 'invalid'],
    ['localhost', 'invalid'],
    ['', 'invalid'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected)
  })

  it('classifies on the one IP parser of core: compressed and dotted IPv6 forms are one address', () => {
    const text = (address: string) => {
      const bytes = parseIpAddress(address)
      return bytes === undefined ? undefined : formatIpAddress(bytes)
    }
    expect(text('::ffff:10.0.0.1')).toBe(text('0:0:0:0:0:ffff:a00:1'))
    expect(text('1:2:3:4:5:6:7:8')).toBe('1:2:3:4:5:6:7:8')
    expect(text('1:2:3:4:5:6:7')).toBeUndefined()
    expect(text('1:2:3:4:5:6:7:8:9')).toBeUndefined()
    for (const [a, b] of [
      ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254'],
      ['2606:4700:0:0:0:0:0:1', '[2606:4700::1]'],
      ['64:ff9b:0:0:0:0:a00:1', '10.0.0.1'],
    ]) {
      expect(classifyAddress(a as string)).toBe(classifyAddress(b as string))
    }
  })
})
