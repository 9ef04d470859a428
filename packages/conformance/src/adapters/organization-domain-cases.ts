import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE } from './account-world.js'
import type { Answer } from './http-client.js'
import { organizationDomainWorld } from './organization-domain-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

interface ClaimBody {
  readonly id: string
  readonly domain: string
  readonly verifiedAt: string | null
  readonly enrollment: string
  readonly recordName: string
  readonly recordValue: string
}

const claimOf = (answer: Answer) => answer.json() as ClaimBody

export const organizationDomainCases: readonly Case[] = [
  conformanceCase(
    'adapter.organization-domains-verify',
    'an owner claims a domain (201, the TXT record), verify is 409 until the record is published and 200 after; a free-mail domain is 400',
    async (fixture, check) => {
      const world = organizationDomainWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      const claimed = await owner.client.post('/auth/organizations/acme/domains', { domain: 'Acme.example' })
      check(claimed.status === 201, `claim answered ${claimed.status}`)
      check((claimed.headers['cache-control'] ?? '').includes('no-store'), 'a claim without no-store')
      const claim = claimOf(claimed)
      check(claim.domain === 'acme.example' && claim.verifiedAt === null, 'the claim came back wrong')
      check(claim.recordName === '_portcullis-challenge.acme.example', `record name ${claim.recordName}`)
      const early = await owner.client.post(`/auth/organizations/acme/domains/${claim.id}/verify`)
      checkProblem(check, early, 409, 'organization_domains.record_missing')
      world.records.publish(claim.recordName, claim.recordValue)
      const verified = await owner.client.post(`/auth/organizations/acme/domains/${claim.id}/verify`)
      check(
        verified.status === 200 && claimOf(verified).verifiedAt !== null,
        `verify answered ${verified.status}`,
      )
      const free = await owner.client.post('/auth/organizations/acme/domains', { domain: 'mail.gmail.com' })
      checkProblem(check, free, 400, 'organization_domains.free_mail')
      const crossSite = await owner.client.post(
        '/auth/organizations/acme/domains',
        { domain: 'x.example' },
        CROSS_SITE,
      )
      check(crossSite.status === 403, `a cross-site claim answered ${crossSite.status}`)
    },
  ),
  conformanceCase(
    'adapter.organization-domains-idor',
    "another organization's id in the path is 404 whatever exists, its claim id under one's own organization 404 and unchanged, another stored role 403",
    async (fixture, check) => {
      const world = organizationDomainWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const intruder = await world.signIn(app.url, 'mallory')
      await world.organization('acme', owner.accountId)
      await world.organization('evil', intruder.accountId)
      const claim = claimOf(
        await owner.client.post('/auth/organizations/acme/domains', { domain: 'acme.example' }),
      )
      world.records.publish(claim.recordName, claim.recordValue)
      for (const organization of ['acme', 'no-such-organization']) {
        const listed = await intruder.client.get(`/auth/organizations/${organization}/domains`)
        checkProblem(check, listed, 404, 'organizations.not_found')
      }
      const foreign = await intruder.client.post(`/auth/organizations/acme/domains/${claim.id}/verify`)
      checkProblem(check, foreign, 404, 'organizations.not_found')
      for (const action of ['verify', 'remove']) {
        const crossed = await intruder.client.post(`/auth/organizations/evil/domains/${claim.id}/${action}`)
        checkProblem(check, crossed, 404, 'organization_domains.not_found')
      }
      const [kept] = (
        (await owner.client.get('/auth/organizations/acme/domains')).json() as { domains: ClaimBody[] }
      ).domains
      check(
        kept?.id === claim.id && kept.verifiedAt === null,
        'the claim was changed through another organization',
      )
      const admin = await world.signIn(app.url, 'adam')
      await world.join('acme', owner.accountId, admin.accountId, 'admin')
      const refused = await admin.client.post(
        '/auth/organizations/acme/domains',
        { domain: 'x.example' },
        { 'x-portcullis-role': 'owner' },
      )
      checkProblem(check, refused, 403, 'organization_domains.forbidden')
      const smuggled = await admin.client.post('/auth/organizations/acme/domains', {
        domain: 'x.example',
        role: 'owner',
      })
      check(smuggled.status === 403, `a role in the body answered ${smuggled.status}`)
    },
  ),
]
