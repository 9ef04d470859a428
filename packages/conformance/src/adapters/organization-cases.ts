import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE } from './account-world.js'
import { acceptBodyOf, type MemberBody, membersOf, organizationWorld } from './organization-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

interface OpenApi {
  readonly paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
}

const ROUTES: readonly (readonly [string, string])[] = [
  ['/auth/organizations', 'post'],
  ['/auth/organizations', 'get'],
  ['/auth/organizations/{organizationId}', 'get'],
  ['/auth/organizations/{organizationId}/members', 'get'],
  ['/auth/organizations/{organizationId}/members/{accountId}/role', 'post'],
  ['/auth/organizations/{organizationId}/members/{accountId}/remove', 'post'],
  ['/auth/organizations/{organizationId}/leave', 'post'],
  ['/auth/organizations/{organizationId}/invitations', 'post'],
  ['/auth/organizations/{organizationId}/invitations', 'get'],
  ['/auth/organizations/{organizationId}/invitations/{invitationId}/revoke', 'post'],
  ['/auth/organizations/{organizationId}/invitations/{invitationId}/resend', 'post'],
  ['/auth/organizations/invitations/accept', 'post'],
]

export const organizationCases: readonly Case[] = [
  conformanceCase(
    'adapter.organizations-flow',
    'an owner creates an organization and invites an address; the mail code, accepted by the verified holder, makes a member; members page by account id; a role changes; a member is removed, another leaves; no answer carries the code',
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const created = await owner.client.post('/auth/organizations', { name: 'Acme', organizationId: 'acme' })
      check(created.status === 201, `create answered ${created.status}`)
      check((created.headers['cache-control'] ?? '').includes('no-store'), 'a create without no-store')
      const mine = (await owner.client.get('/auth/organizations')).json() as {
        organizations: { organizationId: string; role: string; name: string }[]
      }
      check(
        mine.organizations.length === 1 &&
          mine.organizations[0]?.organizationId === 'acme' &&
          mine.organizations[0].role === 'owner' &&
          mine.organizations[0].name === 'Acme',
        `the owner's organizations: ${JSON.stringify(mine)}`,
      )
      const random = await owner.client.post('/auth/organizations', { name: 'Side project' })
      const randomId = (random.json() as { organization?: { organizationId?: string } }).organization
        ?.organizationId
      check(random.status === 201 && /^org_[A-Za-z0-9_-]{22}$/.test(randomId ?? ''), 'an unnamed id')

      const bob = await world.signIn(app.url, 'bob')
      await world.holdAddress(bob.accountId, 'bob@people.example')
      const invited = await owner.client.post('/auth/organizations/acme/invitations', {
        address: 'bob@People.EXAMPLE',
        role: 'member',
      })
      check(invited.status === 201, `invite answered ${invited.status}`)
      const mail = await world.mailTo('bob@people.example')
      const accept = acceptBodyOf(mail)
      check(!invited.text.includes(mail.code), 'the invite answer carries the code')
      const listed = await owner.client.get('/auth/organizations/acme/invitations')
      check(listed.status === 200 && !listed.text.includes(mail.code), 'the invitation list carries the code')
      const peeked = await bob.client.get(
        `/auth/organizations/invitations/accept?invitationId=${accept.invitationId}&code=${accept.code}`,
      )
      check(peeked.status === 404 || peeked.status === 405, `a GET of accept answered ${peeked.status}`)
      const accepted = await bob.client.post('/auth/organizations/invitations/accept', accept)
      check(accepted.status === 200, `accept answered ${accepted.status}: ${accepted.text}`)
      const membership = accepted.json() as MemberBody
      check(
        membership.organizationId === 'acme' && membership.role === 'member',
        'the membership came back wrong',
      )

      const carol = await world.signIn(app.url, 'carol')
      await world.join('acme', owner.accountId, carol.accountId, 'member')
      const everyone = [owner.accountId, bob.accountId, carol.accountId].sort()
      const first = membersOf(await bob.client.get('/auth/organizations/acme/members?limit=2'))
      check(
        JSON.stringify(first.members.map((m) => m.accountId)) === JSON.stringify(everyone.slice(0, 2)),
        'the first page of members',
      )
      const second = membersOf(
        await bob.client.get(
          `/auth/organizations/acme/members?limit=2&after=${encodeURIComponent(first.next ?? '')}`,
        ),
      )
      check(
        JSON.stringify(second.members.map((m) => m.accountId)) === JSON.stringify(everyone.slice(2)) &&
          second.next === null,
        'the second page of members',
      )

      const promoted = await owner.client.post(`/auth/organizations/acme/members/${bob.accountId}/role`, {
        role: 'admin',
      })
      check(
        promoted.status === 200 && (promoted.json() as MemberBody).role === 'admin',
        `role change answered ${promoted.status}`,
      )
      const asAdmin = await bob.client.get('/auth/organizations/acme')
      check((asAdmin.json() as MemberBody).role === 'admin', 'the new role is not the stored one')
      const removed = await owner.client.post(`/auth/organizations/acme/members/${bob.accountId}/remove`)
      check(removed.status === 204, `remove answered ${removed.status}`)
      checkProblem(check, await bob.client.get('/auth/organizations/acme'), 404, 'organizations.not_found')
      const left = await carol.client.post('/auth/organizations/acme/leave')
      check(left.status === 204, `leave answered ${left.status}`)
      const remaining = membersOf(await owner.client.get('/auth/organizations/acme/members'))
      check(
        remaining.members.length === 1 && remaining.members[0]?.accountId === owner.accountId,
        'the members after remove and leave',
      )
      checkProblem(
        check,
        await owner.client.post('/auth/organizations/acme/leave'),
        409,
        'organizations.last_owner',
      )
    },
  ),
  conformanceCase(
    'adapter.organizations-openapi',
    'the OpenAPI document has every organization route with its problems, and no schema names an invitation code or digest except the accept request',
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const document = (await owner.client.get('/openapi.json')).json() as OpenApi
      for (const [path, method] of ROUTES) {
        const operation = document.paths[path]?.[method]
        check(operation !== undefined, `${method.toUpperCase()} ${path} is not documented`)
        check(
          operation?.responses['401'] !== undefined && operation.responses['503'] !== undefined,
          `${method.toUpperCase()} ${path} lacks its 401 or 503`,
        )
        const responses = JSON.stringify(operation?.responses ?? {})
        check(!/"(code|digest)":\{"type"/.test(responses), `${method.toUpperCase()} ${path} answers a code`)
      }
    },
  ),
  conformanceCase(
    'adapter.organizations-outage',
    'with the organization store down, reads and changes answer 503 with Retry-After, and nothing was written once it is back',
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      world.outage.down = true
      const answers = [
        await owner.client.get('/auth/organizations'),
        await owner.client.get('/auth/organizations/acme/members'),
        await owner.client.post('/auth/organizations', { name: 'Down', organizationId: 'down' }),
        await owner.client.post('/auth/organizations/acme/invitations', {
          address: 'x@people.example',
          role: 'member',
        }),
      ]
      for (const answer of answers) {
        check(answer.status === 503, `an outage answered ${answer.status}`)
        check(/^\d+$/.test(answer.headers['retry-after'] ?? ''), 'an outage without Retry-After')
      }
      world.outage.down = false
      const mine = (await owner.client.get('/auth/organizations')).json() as { organizations: unknown[] }
      check(mine.organizations.length === 1, 'an organization was created during the outage')
      const pending = (await owner.client.get('/auth/organizations/acme/invitations')).json() as {
        invitations: unknown[]
      }
      check(pending.invitations.length === 0, 'an invitation was issued during the outage')
    },
  ),
  conformanceCase(
    'adapter.organizations-csrf',
    'every organization change from a cross-site page is refused (403) and changes nothing; without a session it is 401; a body over 16 KiB is 413',
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      const bob = await world.signIn(app.url, 'bob')
      await world.join('acme', owner.accountId, bob.accountId, 'member')
      const attempts: readonly (readonly [string, unknown])[] = [
        ['/auth/organizations', { name: 'Forged' }],
        ['/auth/organizations/acme/invitations', { address: 'evil@people.example', role: 'member' }],
        [`/auth/organizations/acme/members/${bob.accountId}/role`, { role: 'admin' }],
        [`/auth/organizations/acme/members/${bob.accountId}/remove`, undefined],
        ['/auth/organizations/acme/leave', undefined],
      ]
      for (const [path, body] of attempts) {
        const answer = await owner.client.post(path, body, CROSS_SITE)
        check(answer.status === 403, `a cross-site POST ${path} answered ${answer.status}`)
      }
      const members = membersOf(await owner.client.get('/auth/organizations/acme/members')).members
      check(
        members.length === 2 &&
          members.every((m) => m.role === (m.accountId === owner.accountId ? 'owner' : 'member')),
        'a cross-site change went through',
      )
      const mine = (await owner.client.get('/auth/organizations')).json() as { organizations: unknown[] }
      check(mine.organizations.length === 1, 'a cross-site create went through')
      const anonymous = await owner.client.get('/auth/organizations', { cookie: '' })
      check(anonymous.status === 401, `no session answered ${anonymous.status}`)
      const oversized = await owner.client.post('/auth/organizations', { name: 'x'.repeat(20_000) })
      checkProblem(check, oversized, 413, 'request.body_too_large')
    },
  ),
]
