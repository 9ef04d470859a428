// The loopback DNS server answers what a real resolver client (node:dns over c-ares) asks: the TXT
// records set, split records in pieces, no data for other types, NXDOMAIN for unknown names, and the
// failures a test asks for.
import { Resolver } from 'node:dns/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDnsServer, type TestDnsServer } from '../src/dns-server.js'

let dns: TestDnsServer
let resolver: Resolver

beforeAll(async () => {
  dns = await startTestDnsServer()
  resolver = new Resolver({ timeout: 300, tries: 1 })
  resolver.setServers([dns.server])
})
afterAll(() => dns.close())

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'resolved',
    (error: NodeJS.ErrnoException) => error.code,
  )

describe('startTestDnsServer', () => {
  it('answers the TXT records set for a name, case-insensitively, long ones in 255-octet pieces', async () => {
    const long = 'x'.repeat(300)
    dns.setTxt('_challenge.Example.test', ['first', ['two', 'pieces'], long])
    const records = await resolver.resolveTxt('_challenge.example.TEST')
    expect(records).toContainEqual(['first'])
    expect(records).toContainEqual(['two', 'pieces'])
    expect(records).toContainEqual(['x'.repeat(255), 'x'.repeat(45)])
    expect(dns.queries().map((query) => ({ ...query, name: query.name.toLowerCase() }))).toContainEqual({
      name: '_challenge.example.test',
      type: 'TXT',
    })
  })

  it('answers no data for another type and NXDOMAIN for a name it was not given', async () => {
    dns.setTxt('only-txt.test', ['v=spf1 -all'])
    expect(await codeOf(resolver.resolve4('only-txt.test'))).toBe('ENODATA')
    expect(await codeOf(resolver.resolveTxt('unknown.test'))).toBe('ENOTFOUND')
    dns.remove('only-txt.test')
    expect(await codeOf(resolver.resolveTxt('only-txt.test'))).toBe('ENOTFOUND')
  })

  it('fails a name as told: SERVFAIL, REFUSED, or no answer at all', async () => {
    dns.setTxt('failing.test', ['ok'])
    dns.fail('failing.test', 'SERVFAIL')
    expect(await codeOf(resolver.resolveTxt('failing.test'))).toBe('ESERVFAIL')
    dns.fail('failing.test', 'REFUSED')
    expect(await codeOf(resolver.resolveTxt('failing.test'))).toBe('EREFUSED')
    dns.fail('failing.test', 'drop')
    expect(await codeOf(resolver.resolveTxt('failing.test'))).toBe('ETIMEOUT')
    dns.fail('failing.test', undefined)
    expect(await resolver.resolveTxt('failing.test')).toEqual([['ok']])
  })
})
