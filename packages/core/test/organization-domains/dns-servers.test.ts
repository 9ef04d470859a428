// The `servers` of `systemDnsTxtResolver`: IP addresses with an optional port 1 to 65535, refused as a
// configuration error naming the entry otherwise. `node:dns` itself wraps a port above 65535 to another
// port and aborts the whole process on port 0, so the resolver checks every entry before it.
import { startTestDnsServer } from '@portcullis/test-support/dns-server'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/portcullis-error.js'
import { systemDnsTxtResolver } from '../../src/organization-domains/index.js'

function refusal(servers: readonly string[]): unknown {
  try {
    systemDnsTxtResolver({ servers })
  } catch (error) {
    return error
  }
  return undefined
}

describe('the DNS servers a systemDnsTxtResolver asks', () => {
  it('takes IPv4 and IPv6 addresses, each with or without a port', () => {
    for (const server of [
      '127.0.0.1',
      '192.0.2.53:5353',
      '::1',
      '2001:db8::53',
      '[::1]',
      '[2001:db8::53]:53',
      '::ffff:192.0.2.1',
      '[1:2:3:4:5:6:7:8]:5353',
    ]) {
      expect(refusal([server]), server).toBeUndefined()
    }
    expect(refusal(['192.0.2.53', '192.0.2.54:65535'])).toBeUndefined()
  })

  it('refuses ports node:dns would wrap or abort on, host names and malformed entries, naming the entry', () => {
    const cases: readonly [string, string][] = [
      ['192.0.2.53:0', 'has a port outside 1 to 65535'],
      ['[::1]:0', 'has a port outside 1 to 65535'],
      ['192.0.2.53:65536', 'has a port outside 1 to 65535'],
      ['192.0.2.53:99999', 'has a port outside 1 to 65535'],
      ['[::1]:70000', 'has a port outside 1 to 65535'],
      ['192.0.2.53:', 'has a port outside 1 to 65535'],
      ['192.0.2.53:abc', 'has a port outside 1 to 65535'],
      ['192.0.2.53:+53', 'has a port outside 1 to 65535'],
      ['192.0.2.53:1e3', 'has a port outside 1 to 65535'],
      ['localhost', 'is not an IP address'],
      ['dns.example:53', 'is not an IP address'],
      ['300.1.1.1', 'is not an IP address'],
      ['192.0.2.053', 'is not an IP address'],
      ['192.0.2', 'is not an IP address'],
      ['1::2::3', 'is not an IP address'],
      ['[fe80::1%eth0]:53', 'is not an IPv6 address in brackets'],
      [' 192.0.2.53', 'is not an IP address'],
      ['', 'is not an IP address'],
      ['[192.0.2.53]:53', 'is not an IPv6 address in brackets'],
      ['[::1', 'is not an IP address'],
    ]
    for (const [server, problem] of cases) {
      const error = refusal(['127.0.0.1', server])
      expect(error, server).toBeInstanceOf(ConfigurationError)
      expect(error).toMatchObject({
        code: 'configuration.invalid_option',
        option: 'systemDnsTxtResolver.servers',
        message: `servers: ${JSON.stringify(server)} ${problem} (an IP address, with an optional port)`,
      })
    }
  })

  it('asks the server and port it was given', async () => {
    const dns = await startTestDnsServer()
    try {
      dns.setTxt('txt.servers.example', ['on the loopback server'])
      const resolver = systemDnsTxtResolver({
        servers: [`127.0.0.1:${dns.port}`],
        timeoutMs: 1_000,
        tries: 1,
      })
      await expect(resolver.resolveTxt('txt.servers.example')).resolves.toEqual([['on the loopback server']])
      expect(dns.queries()).toContainEqual(
        expect.objectContaining({ name: 'txt.servers.example', type: 'TXT' }),
      )
    } finally {
      await dns.close()
    }
  })
})
