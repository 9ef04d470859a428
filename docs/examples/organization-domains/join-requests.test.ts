// The verified-domain page (docs/organization-domains.md), "Asking to join": the automatic-suggestion
// mode over a real DNS server on loopback, memory stores, a person who asks and an owner who decides.
import { randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import {
  createOrganizationDomains,
  MemoryOrganizationDomainStore,
  OrganizationJoinRequests,
  systemDnsTxtResolver,
} from '@portcullis/core/organization-domains'
import { MemoryOrganizationStore } from '@portcullis/core/organizations'
import { freeMailDomains } from '@portcullis/http/organizations'
import { startTestDnsServer } from '@portcullis/test-support/dns-server'
import { afterAll, describe, expect, it } from 'vitest'

const dns = await startTestDnsServer()
afterAll(() => dns.close())
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

describe('asking to join', () => {
  it('a verified address at a domain in suggestion mode asks; the owner approves into the join role', async () => {
    const organizations = new MemoryOrganizationStore() // or new PostgresOrganizationStore({ client })
    const accounts = new MemoryAccountStore({ cascade: [organizations] })
    const account = async (address?: string) => {
      const accountId = randomUUID()
      const now = new Date()
      await accounts.createAccount({ accountId, username: `u-${accountId}`, passwordHash: HASH, now })
      if (address !== undefined) {
        await accounts.addEmailAddress({ accountId, address, now })
        await accounts.verifyEmailAddress({ accountId, address, now })
      }
      return accountId
    }
    const ownerId = await account()
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: ownerId,
      now: new Date(),
    })
    const events: SecurityEvent[] = []
    const securityEvents = (event: SecurityEvent) => {
      events.push(event)
    }

    // #region wiring
    const domains = createOrganizationDomains({
      store: new MemoryOrganizationDomainStore(),
      freeMailDomains: await freeMailDomains(),
      resolver: systemDnsTxtResolver({ servers: [dns.server], timeoutMs: 2_000 }),
    })
    const joinRequests = new OrganizationJoinRequests({
      domains,
      store: organizations, // the organization store: an approval writes the membership in its transaction
      accounts, // the asker's verified addresses are read here, never from the request
      maxPendingPerOrganization: 100, // the default
      events: securityEvents, // organization.join_requested, join_approved, join_declined
    })
    // #endregion wiring

    const claimed = await domains.claim({
      organizationId: 'acme',
      domain: 'acme.example',
      enrollment: 'automatic-suggestion',
      managerAccountId: ownerId,
    })
    dns.setTxt(claimed.recordName, [claimed.recordValue])
    await domains.verify({ organizationId: 'acme', id: claimed.claim.id })
    const adaId = await account('ada@acme.example')
    const danId = await account('dan@mail.acme.example')

    // #region ask
    // Ada holds ada@acme.example verified; Acme holds acme.example verified in automatic-suggestion mode.
    const request = await joinRequests.ask({ organizationId: 'acme', accountId: adaId })
    // { requestId, organizationId: 'acme', accountId: adaId, address: 'ada@acme.example', createdAt }
    // Dan's address is at a subdomain: nothing is offered to him, organizations.not_found (404 over HTTP).
    const refused = await joinRequests
      .ask({ organizationId: 'acme', accountId: danId })
      .catch((error) => error)
    // #endregion ask
    expect(request).toMatchObject({ organizationId: 'acme', accountId: adaId, address: 'ada@acme.example' })
    expect(refused.code).toBe('organizations.not_found')
    expect(await organizations.membershipsOf(adaId)).toEqual([])

    // #region decide
    const pending = await joinRequests.list({ organizationId: 'acme', actorAccountId: ownerId })
    // [{ requestId: request.requestId, address: 'ada@acme.example', ... }], newest first
    const membership = await joinRequests.approve({
      organizationId: 'acme',
      requestId: request.requestId,
      actorAccountId: ownerId, // needs organization.invitations.manage in the owner's stored role
    })
    // { organizationId: 'acme', accountId: adaId, role: 'member', ... }: the store's join role, never the request's
    // joinRequests.decline({ organizationId, requestId, actorAccountId }) removes a request, nobody joins.
    // #endregion decide
    expect(pending.map((each) => each.requestId)).toEqual([request.requestId])
    expect(membership).toMatchObject({ organizationId: 'acme', accountId: adaId, role: 'member' })
    expect(events.map((event) => event.type)).toEqual([
      'organization.join_requested',
      'organization.join_approved',
    ])
  })
})
