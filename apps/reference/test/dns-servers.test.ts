// `DNS_SERVERS`: the setting is parsed and checked at start-up, and the app's domain checks then ask
// exactly those servers (a DNS server on loopback answers a name no public resolver knows).
import { startTestDnsServer, type TestDnsServer } from '@portcullis/test-support/dns-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfig } from '../src/config.js'
import { Jar, step } from './support/cookie-jar.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

describe('DNS_SERVERS', () => {
  it('reads a comma-separated list of ip[:port], spaces and empty entries left out', () => {
    expect(readConfig({}).dnsServers).toBeUndefined()
    expect(readConfig({ DNS_SERVERS: ' , ' }).dnsServers).toBeUndefined()
    expect(
      readConfig({ DNS_SERVERS: '192.0.2.53, 127.0.0.1:5353,,2001:db8::53 , [::1]:5353' }).dnsServers,
    ).toEqual(['192.0.2.53', '127.0.0.1:5353', '2001:db8::53', '[::1]:5353'])
  })

  it('refuses at start-up, in one line naming the variable and the entry, what the resolver cannot ask', () => {
    const cases: readonly [string, string][] = [
      ['dns.example', '"dns.example" is not an IP address'],
      ['192.0.2.53, localhost:53', '"localhost:53" is not an IP address'],
      ['127.0.0.1:0', '"127.0.0.1:0" has a port outside 1 to 65535'],
      ['127.0.0.1:65536', '"127.0.0.1:65536" has a port outside 1 to 65535'],
      ['[::1]:99999', '"[::1]:99999" has a port outside 1 to 65535'],
      ['::1:53:x', '"::1:53:x" is not an IP address'],
      ['[192.0.2.53]:53', '"[192.0.2.53]:53" is not an IPv6 address in brackets'],
      ['192.0.2.53;192.0.2.54', '"192.0.2.53;192.0.2.54" is not an IP address'],
    ]
    for (const [value, problem] of cases) {
      expect(() => readConfig({ DNS_SERVERS: value }), value).toThrow(
        `DNS_SERVERS: servers: ${problem} (an IP address, with an optional port)`,
      )
    }
  })
})

describe('the domain checks of an app started with DNS_SERVERS', () => {
  let dns: TestDnsServer
  let app: TestApp
  const jar = new Jar()
  const domain = `dns-servers-${process.pid}.example`
  const domainsUrl = () => `${app.url}/organizations/acme/domains`

  beforeAll(async () => {
    dns = await startTestDnsServer()
    const { dnsServers } = readConfig({ DNS_SERVERS: ` ${dns.server} ` })
    expect(dnsServers).toEqual([dns.server])
    app = await startTestApp(dnsServers === undefined ? {} : { dnsServers })
    // Alice owns acme (the demo seed).
    const signIn = await step(jar, `${app.url}/sign-in`, {
      method: 'POST',
      headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=alice&password=${encodeURIComponent(app.password('alice'))}&return_to=/`,
    })
    expect(signIn.status).toBe(303)
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await dns?.close()
  })

  async function page(): Promise<string> {
    const response = await step(jar, domainsUrl(), { headers: { accept: 'text/html' } })
    expect(response.status).toBe(200)
    return response.text()
  }

  async function submit(url: string, fields: Record<string, string> = {}): Promise<Response> {
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page())?.[1] ?? ''
    return step(jar, url, {
      method: 'POST',
      headers: {
        origin: app.url,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ ...fields, csrf_token: csrf }).toString(),
    })
  }

  it('asks the given server: no record there yet, then the published one verifies the domain', async () => {
    expect((await submit(domainsUrl(), { domain })).status).toBe(303)
    const claimed = await page()
    const item = claimed.slice(claimed.indexOf(`data-domain="${domain}"`))
    const verify = /action="([^"]+\/verify)"/.exec(item)?.[1] ?? ''
    const recordName = /data-testid="record-name">([^<]+)</.exec(item)?.[1] ?? ''
    const recordValue = /data-testid="record-value">([^<]+)</.exec(item)?.[1] ?? ''
    expect(recordName).toBe(`_portcullis-challenge.${domain}`)
    expect(verify).toMatch(/^\/organizations\/acme\/domains\/[^/]+\/verify$/)

    expect((await submit(`${app.url}${verify}`)).status).toBe(303)
    expect(await page()).toContain('The TXT record is not there yet')
    expect(dns.queries()).toContainEqual({ name: recordName, type: 'TXT' })

    dns.setTxt(recordName, [recordValue])
    expect((await submit(`${app.url}${verify}`)).status).toBe(303)
    const verified = await page()
    expect(verified).toContain(`${domain} is verified.`)
    expect(verified.slice(verified.indexOf(`data-domain="${domain}"`))).toMatch(
      /data-testid="domain-status">verified</,
    )
  })

  it('a server that refuses to answer makes the check unavailable (503, Retry-After), never a verification', async () => {
    const refused = `refused-${domain}`
    expect((await submit(domainsUrl(), { domain: refused })).status).toBe(303)
    const claimed = await page()
    const item = claimed.slice(claimed.indexOf(`data-domain="${refused}"`))
    const verify = /action="([^"]+\/verify)"/.exec(item)?.[1] ?? ''
    dns.fail(`_portcullis-challenge.${refused}`, 'REFUSED')
    const response = await submit(`${app.url}${verify}`)
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/)
    const after = await page()
    expect(after.slice(after.indexOf(`data-domain="${refused}"`))).toMatch(
      /data-testid="domain-status">not verified</,
    )
  })
})
