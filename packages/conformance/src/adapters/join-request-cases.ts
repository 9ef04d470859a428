import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE } from './account-world.js'
import type { Answer } from './http-client.js'
import { joinRequestWorld } from './join-request-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

interface JoinRequestBody {
  readonly requestId: string
  readonly organizationId: string
  readonly accountId: string
  readonly address: string
}

const requestOf = (answer: Answer) => answer.json() as JoinRequestBody
const listOf = (answer: Answer) => (answer.json() as { joinRequests: JoinRequestBody[] }).joinRequests

export const joinRequestCases: readonly Case[] = [
  conformanceCase(
    'adapter.join-requests-approve',
    'a person with a verified address at a domain in suggestion mode asks (201), the owner lists and approves (200): a member with the join role; a body member or a cross-site POST is refused',
    async (fixture, check) => {
      const world = joinRequestWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const person = await world.signIn(app.url, 'pat')
      await world.organizationWithDomain('acme', owner.accountId, 'acme.example', 'automatic-suggestion')
      await world.holdAddress(person.accountId, 'pat@acme.example')
      const smuggled = await person.client.post('/auth/organization-offers/acme/join-requests', {
        role: 'owner',
      })
      checkProblem(check, smuggled, 400, 'organizations.invalid_input')
      const crossSite = await person.client.post(
        '/auth/organization-offers/acme/join-requests',
        {},
        CROSS_SITE,
      )
      check(crossSite.status === 403, `a cross-site request answered ${crossSite.status}`)
      const asked = await person.client.post('/auth/organization-offers/acme/join-requests')
      check(asked.status === 201, `asking answered ${asked.status}`)
      check((asked.headers['cache-control'] ?? '').includes('no-store'), 'an answer without no-store')
      const request = requestOf(asked)
      check(
        request.accountId === person.accountId && request.address === 'pat@acme.example',
        `asked ${JSON.stringify(request)}`,
      )
      const again = await person.client.post('/auth/organization-offers/acme/join-requests', {})
      check(again.status === 201 && requestOf(again).requestId === request.requestId, 'a second request')
      const mine = await person.client.get('/auth/organization-offers/join-requests')
      check(mine.status === 200 && listOf(mine).length === 1, `own list answered ${mine.status}`)
      const listed = await owner.client.get('/auth/organizations/acme/join-requests')
      check(
        listed.status === 200 && listOf(listed)[0]?.requestId === request.requestId,
        `managers' list answered ${listed.status}`,
      )
      check((await world.roleIn('acme', person.accountId)) === undefined, 'asking made a member')
      const approved = await owner.client.post(
        `/auth/organizations/acme/join-requests/${request.requestId}/approve`,
        {},
        { 'x-portcullis-role': 'owner' },
      )
      check(approved.status === 200, `approval answered ${approved.status}`)
      const membership = approved.json() as { accountId: string; role: string }
      check(
        membership.accountId === person.accountId && membership.role === 'member',
        `membership ${JSON.stringify(membership)}`,
      )
      check((await world.roleIn('acme', person.accountId)) === 'member', 'no membership after approval')
      const twice = await owner.client.post(
        `/auth/organizations/acme/join-requests/${request.requestId}/approve`,
      )
      checkProblem(check, twice, 404, 'organizations.not_found')
      const member = await person.client.post('/auth/organization-offers/acme/join-requests')
      checkProblem(check, member, 409, 'organizations.already_member')
    },
  ),
  conformanceCase(
    'adapter.join-requests-decline',
    'a decline is 204 and makes nobody a member; the request is gone (approving it is 404)',
    async (fixture, check) => {
      const world = joinRequestWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const person = await world.signIn(app.url, 'pat')
      await world.organizationWithDomain('acme', owner.accountId, 'acme.example', 'automatic-suggestion')
      await world.holdAddress(person.accountId, 'pat@acme.example')
      const request = requestOf(await person.client.post('/auth/organization-offers/acme/join-requests'))
      const declined = await owner.client.post(
        `/auth/organizations/acme/join-requests/${request.requestId}/decline`,
      )
      check(declined.status === 204, `decline answered ${declined.status}`)
      const approve = await owner.client.post(
        `/auth/organizations/acme/join-requests/${request.requestId}/approve`,
      )
      checkProblem(check, approve, 404, 'organizations.not_found')
      check((await world.roleIn('acme', person.accountId)) === undefined, 'a declined request made a member')
      const mine = await person.client.get('/auth/organization-offers/join-requests')
      check(listOf(mine).length === 0, 'the declined request is still pending')
    },
  ),
  conformanceCase(
    'adapter.join-requests-idor',
    "another organization's request id is 404 and stays pending, a non-member 404 and a plain member 403 whatever the headers say",
    async (fixture, check) => {
      const world = joinRequestWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const intruder = await world.signIn(app.url, 'mallory')
      const person = await world.signIn(app.url, 'pat')
      const plain = await world.signIn(app.url, 'mo')
      await world.organizationWithDomain('acme', owner.accountId, 'acme.example', 'automatic-suggestion')
      await world.organization('evil', intruder.accountId)
      await world.join('acme', owner.accountId, plain.accountId, 'member')
      await world.holdAddress(person.accountId, 'pat@acme.example')
      const request = requestOf(await person.client.post('/auth/organization-offers/acme/join-requests'))
      for (const action of ['approve', 'decline']) {
        const crossed = await intruder.client.post(
          `/auth/organizations/evil/join-requests/${request.requestId}/${action}`,
        )
        checkProblem(check, crossed, 404, 'organizations.not_found')
        const foreign = await intruder.client.post(
          `/auth/organizations/acme/join-requests/${request.requestId}/${action}`,
        )
        checkProblem(check, foreign, 404, 'organizations.not_found')
        const byMember = await plain.client.post(
          `/auth/organizations/acme/join-requests/${request.requestId}/${action}`,
          {},
          { 'x-portcullis-role': 'owner' },
        )
        checkProblem(check, byMember, 403, 'organizations.forbidden')
      }
      checkProblem(
        check,
        await intruder.client.get('/auth/organizations/acme/join-requests'),
        404,
        'organizations.not_found',
      )
      checkProblem(
        check,
        await plain.client.get('/auth/organizations/acme/join-requests'),
        403,
        'organizations.forbidden',
      )
      const withdrawn = await intruder.client.post(
        `/auth/organization-offers/acme/join-requests/${request.requestId}/withdraw`,
      )
      checkProblem(check, withdrawn, 404, 'organizations.not_found')
      const still = await owner.client.get('/auth/organizations/acme/join-requests')
      check(listOf(still).length === 1, 'the request was changed through another account or organization')
      check((await world.roleIn('acme', person.accountId)) === undefined, 'someone made the asker a member')
      check(
        (await world.roleIn('evil', person.accountId)) === undefined,
        'a member of the wrong organization',
      )
      const own = await person.client.post(
        `/auth/organization-offers/acme/join-requests/${request.requestId}/withdraw`,
      )
      check(own.status === 204, `withdrawing answered ${own.status}`)
    },
  ),
  conformanceCase(
    'adapter.join-requests-refused',
    'no verified address at the domain, an unverified one, a subdomain, or a domain in another mode: 404, nothing stored',
    async (fixture, check) => {
      const world = joinRequestWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organizationWithDomain('acme', owner.accountId, 'acme.example', 'automatic-suggestion')
      await world.organizationWithDomain('beta', owner.accountId, 'beta.example', 'automatic-invitation')
      await world.organizationWithDomain('gamma', owner.accountId, 'gamma.example', 'manual-invitation')
      const people = [
        ['nobody', undefined, true],
        ['unverified', 'u@acme.example', false],
        ['sub', 's@mail.acme.example', true],
      ] as const
      for (const [name, address, verified] of people) {
        const person = await world.signIn(app.url, name)
        if (address !== undefined) await world.holdAddress(person.accountId, address, verified)
        const asked = await person.client.post('/auth/organization-offers/acme/join-requests')
        checkProblem(check, asked, 404, 'organizations.not_found')
      }
      const other = await world.signIn(app.url, 'bea')
      await world.holdAddress(other.accountId, 'b@beta.example')
      await world.holdAddress(other.accountId, 'g@gamma.example')
      for (const organization of ['beta', 'gamma']) {
        const asked = await other.client.post(`/auth/organization-offers/${organization}/join-requests`)
        checkProblem(check, asked, 404, 'organizations.not_found')
      }
      const listed = await owner.client.get('/auth/organizations/acme/join-requests')
      check(listed.status === 200 && listOf(listed).length === 0, 'a refused request was stored')
    },
  ),
]
