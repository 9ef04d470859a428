import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { freshDomain, newClaim, type OrganizationDomainStoreFixture, T0 } from './fixture.js'

type Case = ConformanceCase<OrganizationDomainStoreFixture>

const ROUNDS = 8

export const domainRaceCases: readonly Case[] = [
  conformanceCase(
    'domains.race-verify',
    'two organizations verifying one domain at once on two instances: exactly one holds it verified',
    async ({ store, peer = store, createOrganization }, check) => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const [left, right] = [await createOrganization(), await createOrganization()]
        const domain = freshDomain()
        const mine = newClaim(left, domain)
        const theirs = newClaim(right, domain)
        await store.claim({ claim: mine, maxPerOrganization: 5 })
        await peer.claim({ claim: theirs, maxPerOrganization: 5 })
        const answers = await Promise.all([
          store.markVerified({ organizationId: left, id: mine.id, token: mine.token, now: T0 }),
          peer.markVerified({ organizationId: right, id: theirs.id, token: theirs.token, now: T0 }),
        ])
        const winners = answers.filter((answer) => answer.outcome === 'verified').length
        const losers = answers.filter((answer) => answer.outcome === 'taken').length
        check(
          winners === 1 && losers === 1,
          `round ${round}: ${answers.map((answer) => answer.outcome).join(', ')}`,
        )
        const owners = await store.list({ verifiedDomains: [domain] })
        check(owners.length === 1, `round ${round}: ${owners.length} verified claims of one domain`)
      }
    },
  ),
  conformanceCase(
    'domains.race-limit',
    'claims of one organization racing on two instances never pass its limit',
    async ({ store, peer = store, createOrganization }, check) => {
      const organization = await createOrganization()
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          (index % 2 === 0 ? store : peer).claim({ claim: newClaim(organization), maxPerOrganization: 3 }),
        ),
      )
      const claimed = answers.filter((answer) => answer.outcome === 'claimed').length
      check(claimed === 3, `${claimed} of 6 racing claims were stored under a limit of 3`)
      check(
        (await store.list({ organizationId: organization })).length === 3,
        'the stored claims pass the limit',
      )
    },
  ),
  conformanceCase(
    'domains.race-claim-verified',
    'a claim racing the verification of the same domain by another organization: never two verified',
    async ({ store, peer = store, createOrganization }, check) => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const [left, right] = [await createOrganization(), await createOrganization()]
        const domain = freshDomain()
        const mine = newClaim(left, domain)
        await store.claim({ claim: mine, maxPerOrganization: 5 })
        const theirs = newClaim(right, domain)
        const [, claimed] = await Promise.all([
          store.markVerified({ organizationId: left, id: mine.id, token: mine.token, now: T0 }),
          peer.claim({ claim: theirs, maxPerOrganization: 5 }),
        ])
        if (claimed.outcome === 'claimed') {
          const late = await peer.markVerified({
            organizationId: right,
            id: theirs.id,
            token: theirs.token,
            now: T0,
          })
          check(late.outcome === 'taken', `round ${round}: the late claim answered ${late.outcome}`)
        } else {
          check(claimed.outcome === 'taken', `round ${round}: the claim answered ${claimed.outcome}`)
        }
        check(
          (await peer.list({ verifiedDomains: [domain] })).length === 1,
          `round ${round}: not one verified claim`,
        )
      }
    },
  ),
]
