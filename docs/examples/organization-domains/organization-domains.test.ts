// The verified-domain page (docs/organization-domains.md): claim, publish, verify and enrollment over a
// real DNS server on loopback, with the maintained free-mail list of @portcullis/http.
import {
  createOrganizationDomains,
  MemoryOrganizationDomainStore,
  OrganizationDomainError,
  systemDnsTxtResolver,
} from '@portcullis/core/organization-domains'
import { freeMailDomains } from '@portcullis/http/organizations'
import { startTestDnsServer } from '@portcullis/test-support/dns-server'
import { afterAll, describe, expect, it } from 'vitest'

const dns = await startTestDnsServer()
afterAll(() => dns.close())

describe('verified domains', () => {
  it('claims, refuses until the record is published, verifies, then offers enrollment', async () => {
    // #region wiring
    const domains = createOrganizationDomains({
      store: new MemoryOrganizationDomainStore(), // or new PostgresOrganizationDomainStore({ client })
      freeMailDomains: await freeMailDomains(), // the maintained list: gmail.com, outlook.com, ...
      resolver: systemDnsTxtResolver({ servers: [dns.server], timeoutMs: 2_000 }),
    })
    // #endregion wiring

    // #region claim
    const { claim, recordName, recordValue } = await domains.claim({
      organizationId: 'org-acme',
      domain: 'Acme.example',
      enrollment: 'automatic-invitation',
    })
    // recordName:  _portcullis-challenge.acme.example
    // recordValue: portcullis-domain-verification=<the claim's token>
    // #endregion claim
    expect(recordName).toBe('_portcullis-challenge.acme.example')

    // #region verify
    const early = await domains
      .verify({ organizationId: 'org-acme', id: claim.id })
      .catch((error: unknown) => error)
    // Not published yet: an OrganizationDomainError, organization_domains.record_missing (409 over HTTP).
    dns.setTxt(recordName, [recordValue]) // what the organization's DNS administrator does
    const verified = await domains.verify({ organizationId: 'org-acme', id: claim.id })
    // verified.verifiedAt is set; another organization can no longer claim acme.example
    // #endregion verify
    expect(early).toBeInstanceOf(OrganizationDomainError)
    expect((early as OrganizationDomainError).code).toBe('organization_domains.record_missing')
    expect(verified.verifiedAt).toBeInstanceOf(Date)

    // #region enrollment
    const offers = await domains.enrollmentFor([
      { address: 'ada@acme.example', verified: true }, // counts
      { address: 'ada@mail.acme.example', verified: true }, // another domain: nothing
      { address: 'bob@acme.example', verified: false }, // unverified: nothing
    ])
    // [{ organizationId: 'org-acme', domainId: claim.id, domain: 'acme.example', mode: 'automatic-invitation' }]
    // #endregion enrollment
    expect(offers).toEqual([
      {
        organizationId: 'org-acme',
        domainId: claim.id,
        domain: 'acme.example',
        mode: 'automatic-invitation',
      },
    ])

    // #region free-mail
    await expect(domains.claim({ organizationId: 'org-acme', domain: 'gmail.com' })).rejects.toMatchObject({
      code: 'organization_domains.free_mail',
    })
    // #endregion free-mail
  })
})
