import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  at,
  codeOf,
  freshDomain,
  newClaim,
  type OrganizationDomainStoreFixture,
  sameClaim,
  T0,
} from './fixture.js'

type Case = ConformanceCase<OrganizationDomainStoreFixture>

export const domainLifecycleCases: readonly Case[] = [
  conformanceCase(
    'domains.round-trip',
    'a claim is stored exactly, listed for its organization oldest first and for nobody else',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const other = await createOrganization()
      const first = newClaim(organization, freshDomain(), { enrollment: 'automatic-suggestion' })
      const second = newClaim(organization, freshDomain(), { createdAt: at(1000) })
      const claimed = await store.claim({ claim: first, maxPerOrganization: 5 })
      check(
        claimed.outcome === 'claimed' && sameClaim(claimed.claim, first),
        `claim answered ${claimed.outcome}`,
      )
      await store.claim({ claim: second, maxPerOrganization: 5 })
      const listed = await store.list({ organizationId: organization })
      check(listed.length === 2, `listed ${listed.length} claims`)
      check(
        sameClaim(listed[0], first) && sameClaim(listed[1], second),
        'the claims came back changed or out of order',
      )
      check(
        (await store.list({ organizationId: other })).length === 0,
        'another organization lists the claims',
      )
      const verified = await store.list({ verifiedDomains: [first.domain, second.domain] })
      check(verified.length === 0, 'a pending claim was listed as verified')
    },
  ),
  conformanceCase(
    'domains.existing-claim',
    'claiming a domain the organization already claims answers its claim and stores nothing new',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const claim = newClaim(organization)
      await store.claim({ claim, maxPerOrganization: 1 })
      const again = await store.claim({ claim: newClaim(organization, claim.domain), maxPerOrganization: 1 })
      check(
        again.outcome === 'existing' && sameClaim(again.claim, claim),
        `the second claim answered ${again.outcome}`,
      )
      check((await store.list({ organizationId: organization })).length === 1, 'the domain is claimed twice')
    },
  ),
  conformanceCase(
    'domains.verify',
    'marking a claim verified with its token records the time once; a second mark keeps the first time',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const claim = newClaim(organization)
      await store.claim({ claim, maxPerOrganization: 5 })
      const marked = await store.markVerified({
        organizationId: organization,
        id: claim.id,
        token: claim.token,
        now: at(5000),
      })
      check(
        marked.outcome === 'verified' && sameClaim(marked.claim, { ...claim, verifiedAt: at(5000) }),
        `the mark answered ${marked.outcome}`,
      )
      const again = await store.markVerified({
        organizationId: organization,
        id: claim.id,
        token: claim.token,
        now: at(9000),
      })
      check(
        again.outcome === 'verified' && again.claim.verifiedAt?.getTime() === at(5000).getTime(),
        'the verification time moved',
      )
      const listed = await store.list({ verifiedDomains: [freshDomain(), claim.domain] })
      check(
        listed.length === 1 && sameClaim(listed[0], { ...claim, verifiedAt: at(5000) }),
        'the verified claim is not listed by its domain',
      )
    },
  ),
  conformanceCase(
    'domains.other-organization',
    "another organization's claim id (or a wrong token) finds nothing: no mark, no change, no removal",
    async ({ store, createOrganization }, check) => {
      const owner = await createOrganization()
      const intruder = await createOrganization()
      const claim = newClaim(owner)
      await store.claim({ claim, maxPerOrganization: 5 })
      const foreign = { organizationId: intruder, id: claim.id }
      const marked = await store.markVerified({ ...foreign, token: claim.token, now: T0 })
      check(marked.outcome === 'not-found', `a foreign mark answered ${marked.outcome}`)
      const wrongToken = await store.markVerified({
        organizationId: owner,
        id: claim.id,
        token: newClaim(owner).token,
        now: T0,
      })
      check(wrongToken.outcome === 'not-found', `a wrong token answered ${wrongToken.outcome}`)
      check(
        (await store.setEnrollment({ ...foreign, enrollment: 'automatic-invitation' })) === null,
        'a foreign change was applied',
      )
      check((await store.remove(foreign)) === false, 'a foreign removal answered true')
      const [kept] = await store.list({ organizationId: owner })
      check(sameClaim(kept, claim), 'the claim changed')
    },
  ),
  conformanceCase(
    'domains.one-verified-owner',
    'while one organization holds a domain verified, another can neither verify nor newly claim it; pending claims block nobody',
    async ({ store, createOrganization }, check) => {
      const [first, second, third] = [
        await createOrganization(),
        await createOrganization(),
        await createOrganization(),
      ]
      const domain = freshDomain()
      const mine = newClaim(first, domain)
      const theirs = newClaim(second, domain, { createdAt: at(10) })
      check(
        (await store.claim({ claim: mine, maxPerOrganization: 5 })).outcome === 'claimed',
        'the first claim failed',
      )
      check(
        (await store.claim({ claim: theirs, maxPerOrganization: 5 })).outcome === 'claimed',
        'a pending claim blocked another',
      )
      await store.markVerified({ organizationId: second, id: theirs.id, token: theirs.token, now: at(20) })
      const late = await store.markVerified({
        organizationId: first,
        id: mine.id,
        token: mine.token,
        now: at(30),
      })
      check(late.outcome === 'taken', `verifying a domain verified elsewhere answered ${late.outcome}`)
      const [pending] = await store.list({ organizationId: first })
      check(pending?.verifiedAt === null, 'the losing claim was marked')
      const newcomer = await store.claim({ claim: newClaim(third, domain), maxPerOrganization: 5 })
      check(newcomer.outcome === 'taken', `a claim of a verified domain answered ${newcomer.outcome}`)
      const owners = await store.list({ verifiedDomains: [domain] })
      check(
        owners.length === 1 && owners[0]?.organizationId === second,
        'the verified owner is not the only one listed',
      )
    },
  ),
  conformanceCase(
    'domains.remove',
    'removing a verified claim frees the domain: another organization may then verify it',
    async ({ store, createOrganization }, check) => {
      const [first, second] = [await createOrganization(), await createOrganization()]
      const domain = freshDomain()
      const mine = newClaim(first, domain)
      await store.claim({ claim: mine, maxPerOrganization: 5 })
      await store.markVerified({ organizationId: first, id: mine.id, token: mine.token, now: T0 })
      check(
        (await store.remove({ organizationId: first, id: mine.id })) === true,
        'the removal answered false',
      )
      check(
        (await store.remove({ organizationId: first, id: mine.id })) === false,
        'a second removal answered true',
      )
      check((await store.list({ organizationId: first })).length === 0, 'the removed claim is still listed')
      const theirs = newClaim(second, domain)
      check(
        (await store.claim({ claim: theirs, maxPerOrganization: 5 })).outcome === 'claimed',
        'the freed domain cannot be claimed',
      )
      const marked = await store.markVerified({
        organizationId: second,
        id: theirs.id,
        token: theirs.token,
        now: T0,
      })
      check(marked.outcome === 'verified', `the freed domain answered ${marked.outcome}`)
    },
  ),
  conformanceCase(
    'domains.enrolled-by',
    'the manager who chose the mode is kept with the claim, replaced by the next setEnrollment, cleared without one, and a malformed one refused',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const claim = newClaim(organization, freshDomain(), { enrolledBy: 'manager-1' })
      const plain = newClaim(organization)
      await store.claim({ claim, maxPerOrganization: 5 })
      await store.claim({ claim: plain, maxPerOrganization: 5 })
      const byId = async (id: string) =>
        (await store.list({ organizationId: organization })).find((entry) => entry.id === id)
      check((await byId(claim.id))?.enrolledBy === 'manager-1', 'the claim lost its manager')
      check((await byId(plain.id))?.enrolledBy === undefined, 'a claim without a manager has one')
      const changed = await store.setEnrollment({
        organizationId: organization,
        id: claim.id,
        enrollment: 'automatic-invitation',
        enrolledBy: 'manager-2',
      })
      check(changed?.enrolledBy === 'manager-2', 'setEnrollment did not answer the new manager')
      check((await byId(claim.id))?.enrolledBy === 'manager-2', 'the new manager was not stored')
      await store.setEnrollment({
        organizationId: organization,
        id: claim.id,
        enrollment: 'manual-invitation',
      })
      check(
        (await byId(claim.id))?.enrolledBy === undefined,
        'a setEnrollment without a manager kept the old one',
      )
      for (const enrolledBy of ['', ' padded', 'nul\u0000', 7]) {
        const code = await codeOf(
          store.setEnrollment({
            organizationId: organization,
            id: claim.id,
            enrollment: 'automatic-invitation',
            enrolledBy: enrolledBy as string,
          }),
        )
        check(
          code === 'organization_domains.invalid_input',
          `enrolledBy ${JSON.stringify(enrolledBy)}: ${code}`,
        )
      }
      check((await byId(claim.id))?.enrollment === 'manual-invitation', 'a refused change was written')
      // A claim that keeps its manager (a durable store's column is written and stays so).
      const kept = newClaim(organization, freshDomain(), { enrolledBy: 'manager-3' })
      await store.claim({ claim: kept, maxPerOrganization: 5 })
      check((await byId(kept.id))?.enrolledBy === 'manager-3', 'a second claim lost its manager')
    },
  ),
  conformanceCase(
    'domains.enrollment',
    'the enrollment mode changes on the claim and only there',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const claim = newClaim(organization)
      const neighbour = newClaim(organization)
      await store.claim({ claim, maxPerOrganization: 5 })
      await store.claim({ claim: neighbour, maxPerOrganization: 5 })
      const updated = await store.setEnrollment({
        organizationId: organization,
        id: claim.id,
        enrollment: 'automatic-invitation',
      })
      check(
        sameClaim(updated ?? undefined, { ...claim, enrollment: 'automatic-invitation' }),
        'the update came back wrong',
      )
      const listed = await store.list({ organizationId: organization })
      check(
        listed.find((entry) => entry.id === claim.id)?.enrollment === 'automatic-invitation',
        'the mode was not stored',
      )
      check(
        listed.find((entry) => entry.id === neighbour.id)?.enrollment === 'manual-invitation',
        'another claim changed',
      )
    },
  ),
  conformanceCase(
    'domains.limit',
    'an organization holds at most maxPerOrganization claims; answering its existing claim does not count',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const first = newClaim(organization)
      await store.claim({ claim: first, maxPerOrganization: 2 })
      await store.claim({ claim: newClaim(organization), maxPerOrganization: 2 })
      const third = await store.claim({ claim: newClaim(organization), maxPerOrganization: 2 })
      check(third.outcome === 'limit-reached', `a third claim answered ${third.outcome}`)
      const existing = await store.claim({
        claim: newClaim(organization, first.domain),
        maxPerOrganization: 2,
      })
      check(existing.outcome === 'existing', `the existing claim answered ${existing.outcome}`)
      check((await store.list({ organizationId: organization })).length === 2, 'the limit was passed')
    },
  ),
  conformanceCase(
    'domains.invalid-input',
    'malformed requests are organization_domains.invalid_input and write nothing',
    async ({ store, createOrganization }, check) => {
      const organization = await createOrganization()
      const bad = [
        newClaim(organization, 'Not A Domain'),
        newClaim(organization, 'EXAMPLE.com'),
        newClaim(organization, 'localhost'),
        newClaim(organization, freshDomain(), { id: 'short' }),
        newClaim(organization, freshDomain(), { token: 'x'.repeat(65) }),
        newClaim(organization, freshDomain(), { verifiedAt: T0 }),
        newClaim(organization, freshDomain(), { enrollment: 'everyone' as never }),
        newClaim(organization, freshDomain(), { createdAt: new Date(Number.NaN) }),
        newClaim(' padded ', freshDomain()),
      ]
      for (const [index, claim] of bad.entries()) {
        const code = await codeOf(store.claim({ claim, maxPerOrganization: 5 }))
        check(code === 'organization_domains.invalid_input', `bad claim ${index} answered ${code}`)
      }
      const limit = await codeOf(store.claim({ claim: newClaim(organization), maxPerOrganization: 0 }))
      check(limit === 'organization_domains.invalid_input', `a zero limit answered ${limit}`)
      const list = await codeOf(
        store.list({ verifiedDomains: Array.from({ length: 21 }, () => freshDomain()) }),
      )
      check(list === 'organization_domains.invalid_input', `21 domains answered ${list}`)
      const both = await codeOf(store.list({ organizationId: organization, verifiedDomains: [] } as never))
      check(both === 'organization_domains.invalid_input', `a list naming both answered ${both}`)
      check((await store.list({ organizationId: organization })).length === 0, 'a refused claim was stored')
    },
  ),
  conformanceCase(
    'domains.organization-deleted',
    'deleting an organization removes its claims and frees its verified domains',
    async ({ store, createOrganization, deleteOrganization }, check) => {
      if (deleteOrganization === undefined) return
      const [gone, next] = [await createOrganization(), await createOrganization()]
      const claim = newClaim(gone)
      await store.claim({ claim, maxPerOrganization: 5 })
      await store.markVerified({ organizationId: gone, id: claim.id, token: claim.token, now: T0 })
      await deleteOrganization(gone)
      check((await store.list({ organizationId: gone })).length === 0, 'the claims outlived the organization')
      check(
        (await store.list({ verifiedDomains: [claim.domain] })).length === 0,
        'the domain is still verified',
      )
      const after = await store.claim({ claim: newClaim(next, claim.domain), maxPerOrganization: 5 })
      check(after.outcome === 'claimed', `the freed domain answered ${after.outcome}`)
    },
  ),
]
