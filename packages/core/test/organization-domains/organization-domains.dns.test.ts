// The verified-domain flows against a real DNS server on loopback (`dns-packet` over `node:dgram`,
// asked through the default `node:dns` resolver): the TXT record proves the claim only with this
// claim's token; free-mail domains, a domain verified elsewhere and another organization's claim ids
// are refused; DNS failures are `unavailable`, never a verification.
import { startTestDnsServer, type TestDnsServer } from '@portcullis/test-support/dns-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createOrganizationDomains,
  MemoryOrganizationDomainStore,
  type OrganizationDomains,
  systemDnsTxtResolver,
} from '../../src/organization-domains/index.js'

const FREE_MAIL = new Set(['gmail.com', 'outlook.com'])
let dns: TestDnsServer
let counter = 0

beforeAll(async () => {
  dns = await startTestDnsServer()
})
afterAll(() => dns.close())

function service(
  store = new MemoryOrganizationDomainStore(),
  options: { tries?: number } = {},
): OrganizationDomains {
  return createOrganizationDomains({
    store,
    freeMailDomains: FREE_MAIL,
    resolver: systemDnsTxtResolver({ servers: [dns.server], timeoutMs: 300, tries: options.tries ?? 1 }),
  })
}

const domain = () => {
  counter += 1
  return `corp${counter}-${process.pid}.example`
}

async function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'resolved',
    (error: unknown) => String((error as { code?: unknown }).code),
  )
}

describe('claiming and verifying a domain over real DNS', () => {
  it('answers the record to publish, refuses before it is published and verifies once it is', async () => {
    const domains = service()
    const name = domain()
    const { claim, recordName, recordValue } = await domains.claim({
      organizationId: 'org-a',
      domain: name.toUpperCase(),
    })
    expect(claim).toMatchObject({
      organizationId: 'org-a',
      domain: name,
      verifiedAt: null,
      enrollment: 'manual-invitation',
    })
    expect(recordName).toBe(`_portcullis-challenge.${name}`)
    expect(recordValue).toBe(`portcullis-domain-verification=${claim.token}`)

    expect(await codeOf(domains.verify({ organizationId: 'org-a', id: claim.id }))).toBe(
      'organization_domains.record_missing',
    )
    // The record at the domain itself, not the challenge name, proves nothing.
    dns.setTxt(name, [recordValue])
    expect(await codeOf(domains.verify({ organizationId: 'org-a', id: claim.id }))).toBe(
      'organization_domains.record_missing',
    )
    dns.setTxt(recordName, ['v=spf1 -all', recordValue])
    const verified = await domains.verify({ organizationId: 'org-a', id: claim.id })
    expect(verified.verifiedAt).toBeInstanceOf(Date)
    expect(
      dns.queries().some((query) => query.name.toLowerCase() === recordName && query.type === 'TXT'),
    ).toBe(true)
    // Verified once: the record may go, the claim stays verified without another lookup.
    dns.remove(recordName)
    const asked = dns.queries().length
    expect((await domains.verify({ organizationId: 'org-a', id: claim.id })).verifiedAt).toEqual(
      verified.verifiedAt,
    )
    expect(dns.queries().length).toBe(asked)
  })

  it('reads a record published in several pieces', async () => {
    const domains = service()
    const { claim, recordName, recordValue } = await domains.claim({
      organizationId: 'org-a',
      domain: domain(),
    })
    dns.setTxt(recordName, [[recordValue.slice(0, 20), recordValue.slice(20)]])
    expect((await domains.verify({ organizationId: 'org-a', id: claim.id })).verifiedAt).not.toBeNull()
  })

  it("refuses a domain published with another organization's record, and the one who proves it wins", async () => {
    const store = new MemoryOrganizationDomainStore()
    const domains = service(store)
    const name = domain()
    const victim = await domains.claim({ organizationId: 'org-owner', domain: name })
    const squatter = await domains.claim({ organizationId: 'org-squatter', domain: name })
    expect(squatter.recordName).toBe(victim.recordName)
    expect(squatter.recordValue).not.toBe(victim.recordValue)
    dns.setTxt(victim.recordName, [victim.recordValue])
    expect(await codeOf(domains.verify({ organizationId: 'org-squatter', id: squatter.claim.id }))).toBe(
      'organization_domains.record_mismatch',
    )
    await domains.verify({ organizationId: 'org-owner', id: victim.claim.id })
    // Even with its own record added later, the squatter cannot take a domain verified elsewhere.
    dns.setTxt(victim.recordName, [victim.recordValue, squatter.recordValue])
    expect(await codeOf(domains.verify({ organizationId: 'org-squatter', id: squatter.claim.id }))).toBe(
      'organization_domains.taken',
    )
    expect(await codeOf(domains.claim({ organizationId: 'org-third', domain: name }))).toBe(
      'organization_domains.taken',
    )
    expect((await domains.list('org-squatter'))[0]?.claim.verifiedAt).toBeNull()
  })

  it('refuses free-mail domains and their subdomains before anything is stored', async () => {
    const store = new MemoryOrganizationDomainStore()
    const domains = service(store)
    for (const name of ['gmail.com', 'GMAIL.com', 'mail.gmail.com', 'outlook.com']) {
      expect(await codeOf(domains.claim({ organizationId: 'org-a', domain: name }))).toBe(
        'organization_domains.free_mail',
      )
    }
    expect(await store.list({ organizationId: 'org-a' })).toEqual([])
  })

  it("finds nothing behind another organization's claim id: no verification, no change, no removal", async () => {
    const domains = service()
    const { claim, recordName, recordValue } = await domains.claim({
      organizationId: 'org-a',
      domain: domain(),
    })
    dns.setTxt(recordName, [recordValue])
    const foreign = { organizationId: 'org-b', id: claim.id }
    expect(await codeOf(domains.verify(foreign))).toBe('organization_domains.not_found')
    expect(await codeOf(domains.setEnrollment({ ...foreign, enrollment: 'automatic-invitation' }))).toBe(
      'organization_domains.not_found',
    )
    expect(await codeOf(domains.remove(foreign))).toBe('organization_domains.not_found')
    const [kept] = await domains.list('org-a')
    expect(kept?.claim).toEqual(claim)
  })

  it('is unavailable, never verified, when DNS fails or does not answer', async () => {
    const domains = service()
    const { claim, recordName, recordValue } = await domains.claim({
      organizationId: 'org-a',
      domain: domain(),
    })
    dns.setTxt(recordName, [recordValue])
    for (const failure of ['SERVFAIL', 'REFUSED', 'drop'] as const) {
      dns.fail(recordName, failure)
      const error = await domains
        .verify({ organizationId: 'org-a', id: claim.id })
        .catch((caught: unknown) => caught)
      expect(error, failure).toMatchObject({
        code: 'organization_domains.unavailable',
        errorClass: 'unavailable',
      })
      expect((error as { retryAfterSeconds?: number }).retryAfterSeconds).toBeGreaterThan(0)
    }
    expect((await domains.list('org-a'))[0]?.claim.verifiedAt).toBeNull()
    dns.fail(recordName, undefined)
    expect((await domains.verify({ organizationId: 'org-a', id: claim.id })).verifiedAt).not.toBeNull()
  })

  it('refuses a malformed resolver server list at startup', () => {
    expect(() => systemDnsTxtResolver({ servers: ['not a server'] })).toThrow(
      expect.objectContaining({ code: 'configuration.invalid_option' }),
    )
  })
})

describe('enrollment through a verified domain', () => {
  it('offers only verified domains in a non-manual mode, to verified addresses at exactly that domain', async () => {
    const domains = service()
    const name = domain()
    const { claim, recordName, recordValue } = await domains.claim({
      organizationId: 'org-a',
      domain: name,
      enrollment: 'automatic-invitation',
    })
    const person = [{ address: `ada@${name}`, verified: true }]
    // Affiliation alone (members' addresses at the domain) never verifies it: nothing is offered yet.
    expect(await domains.enrollmentFor(person)).toEqual([])
    dns.setTxt(recordName, [recordValue])
    await domains.verify({ organizationId: 'org-a', id: claim.id })
    expect(await domains.enrollmentFor(person)).toEqual([
      { organizationId: 'org-a', domainId: claim.id, domain: name, mode: 'automatic-invitation' },
    ])
    expect(await domains.enrollmentFor([{ address: `ada@${name}`, verified: false }])).toEqual([])
    expect(await domains.enrollmentFor([{ address: `ada@eng.${name}`, verified: true }])).toEqual([])
    expect(await domains.enrollmentFor([{ address: `ada@x${name}`, verified: true }])).toEqual([])
    await domains.setEnrollment({ organizationId: 'org-a', id: claim.id, enrollment: 'automatic-suggestion' })
    expect((await domains.enrollmentFor(person))[0]?.mode).toBe('automatic-suggestion')
    await domains.setEnrollment({ organizationId: 'org-a', id: claim.id, enrollment: 'manual-invitation' })
    expect(await domains.enrollmentFor(person)).toEqual([])
  })
})
