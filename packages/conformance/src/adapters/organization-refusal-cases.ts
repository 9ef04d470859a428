import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import type { Answer } from './http-client.js'
import { acceptBodyOf, type MemberBody, membersOf, organizationWorld } from './organization-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const ACCEPT = '/auth/organizations/invitations/accept'
const invitationIdOf = (answer: Answer) => (answer.json() as { invitationId: string }).invitationId

export const organizationRefusalCases: readonly Case[] = [
  conformanceCase(
    'adapter.organizations-accept-refusals',
    "an invitation accepted by another address's holder or over an unverified address is 403 and stays pending; a wrong, replayed, revoked or superseded code is 404; an expired one 409",
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      const invite = (address: string) =>
        owner.client.post('/auth/organizations/acme/invitations', { address, role: 'member' })
      const bob = await world.signIn(app.url, 'bob')
      const mallory = await world.signIn(app.url, 'mallory')
      await world.holdAddress(mallory.accountId, 'mallory@people.example')
      await world.holdAddress(bob.accountId, 'bob@people.example', false)
      await invite('bob@people.example')
      const accept = acceptBodyOf(await world.mailTo('bob@people.example'))
      checkProblem(check, await mallory.client.post(ACCEPT, accept), 403, 'organizations.address_mismatch')
      checkProblem(check, await bob.client.post(ACCEPT, accept), 403, 'organizations.address_mismatch')
      const wrong = { ...accept, code: accept.code === 'AAAAAAAAAAAA' ? 'BBBBBBBBBBBB' : 'AAAAAAAAAAAA' }
      await world.holdAddress(bob.accountId, 'bob@people.example')
      checkProblem(check, await bob.client.post(ACCEPT, wrong), 404, 'organizations.not_found')
      const accepted = await bob.client.post(ACCEPT, accept)
      check(accepted.status === 200, `the verified holder's accept answered ${accepted.status}`)
      checkProblem(check, await bob.client.post(ACCEPT, accept), 404, 'organizations.not_found')
      check(
        membersOf(await owner.client.get('/auth/organizations/acme/members')).members.length === 2,
        'a refused accept made a member',
      )

      const carol = await world.signIn(app.url, 'carol')
      await world.holdAddress(carol.accountId, 'carol@people.example')
      const revokedId = invitationIdOf(await invite('carol@people.example'))
      const revokedMail = acceptBodyOf(await world.mailTo('carol@people.example'))
      const revoked = await owner.client.post(`/auth/organizations/acme/invitations/${revokedId}/revoke`)
      check(revoked.status === 204, `revoke answered ${revoked.status}`)
      checkProblem(check, await carol.client.post(ACCEPT, revokedMail), 404, 'organizations.not_found')

      const resentId = invitationIdOf(await invite('carol@people.example'))
      const firstMail = acceptBodyOf(await world.mailTo('carol@people.example'))
      const resent = await owner.client.post(`/auth/organizations/acme/invitations/${resentId}/resend`)
      check(resent.status === 200, `resend answered ${resent.status}`)
      const secondMail = acceptBodyOf(await world.mailTo('carol@people.example'))
      check(secondMail.code !== firstMail.code, 'resend mailed the same code')
      checkProblem(check, await carol.client.post(ACCEPT, firstMail), 404, 'organizations.not_found')
      check((await carol.client.post(ACCEPT, secondMail)).status === 200, "the resent code didn't work")

      const dave = await world.signIn(app.url, 'dave')
      await world.holdAddress(dave.accountId, 'dave@people.example')
      await owner.client.post('/auth/organizations/acme/invitations', {
        address: 'dave@people.example',
        role: 'member',
        lifetimeDays: 1,
      })
      const daveMail = acceptBodyOf(await world.mailTo('dave@people.example'))
      world.advanceDays(2)
      checkProblem(check, await dave.client.post(ACCEPT, daveMail), 409, 'organizations.invitation_expired')
      for (const body of [{ ...daveMail, code: 7 }, { invitationId: 'short', code: daveMail.code }, {}]) {
        const malformed = await dave.client.post(ACCEPT, body)
        check(malformed.status === 400, `a malformed accept answered ${malformed.status}`)
      }
    },
  ),
  conformanceCase(
    'adapter.organizations-rank',
    'a member may not invite; an admin may not invite, promote to or act on an owner; the last owner can neither be demoted nor removed; a role in a header or body is never read',
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      const admin = await world.signIn(app.url, 'adam')
      const member = await world.signIn(app.url, 'mia')
      await world.join('acme', owner.accountId, admin.accountId, 'admin')
      await world.join('acme', owner.accountId, member.accountId, 'member')
      const path = (accountId: string, action: string) =>
        `/auth/organizations/acme/members/${accountId}/${action}`
      const invite = { address: 'x@people.example', role: 'member' }
      checkProblem(
        check,
        await member.client.post('/auth/organizations/acme/invitations', invite, {
          'x-portcullis-role': 'owner',
        }),
        403,
        'organizations.forbidden',
      )
      checkProblem(
        check,
        await admin.client.post('/auth/organizations/acme/invitations', { ...invite, role: 'owner' }),
        403,
        'organizations.rank_exceeded',
      )
      const smuggled = await member.client.post('/auth/organizations/acme/invitations', {
        ...invite,
        actorRole: 'owner',
      })
      checkProblem(check, smuggled, 400, 'organizations.invalid_input')
      checkProblem(
        check,
        await admin.client.post(path(member.accountId, 'role'), { role: 'owner' }),
        403,
        'organizations.rank_exceeded',
      )
      checkProblem(
        check,
        await admin.client.post(path(owner.accountId, 'role'), { role: 'member' }),
        403,
        'organizations.rank_exceeded',
      )
      checkProblem(
        check,
        await admin.client.post(path(owner.accountId, 'remove')),
        403,
        'organizations.rank_exceeded',
      )
      checkProblem(
        check,
        await member.client.post(path(admin.accountId, 'remove')),
        403,
        'organizations.forbidden',
      )
      checkProblem(
        check,
        await owner.client.post(path(owner.accountId, 'role'), { role: 'admin' }),
        409,
        'organizations.last_owner',
      )
      checkProblem(
        check,
        await owner.client.post(path(owner.accountId, 'remove')),
        409,
        'organizations.last_owner',
      )
      checkProblem(
        check,
        await owner.client.post(path(admin.accountId, 'role'), { role: 'root' }),
        400,
        'organizations.invalid_input',
      )
      const roles = membersOf(await owner.client.get('/auth/organizations/acme/members')).members
      const roleOf = (accountId: string) => roles.find((m) => m.accountId === accountId)?.role
      check(
        roleOf(owner.accountId) === 'owner' &&
          roleOf(admin.accountId) === 'admin' &&
          roleOf(member.accountId) === 'member',
        'a refused change changed a role',
      )
      const second = await owner.client.post(path(admin.accountId, 'role'), { role: 'owner' })
      check(second.status === 200, `promoting a second owner answered ${second.status}`)
      const demoted = await admin.client.post(path(owner.accountId, 'role'), { role: 'member' })
      check((demoted.json() as MemberBody).role === 'member', 'an owner could not demote another owner')
      checkProblem(
        check,
        await admin.client.post('/auth/organizations/acme/leave'),
        409,
        'organizations.last_owner',
      )
    },
  ),
  conformanceCase(
    'adapter.organizations-idor',
    "another organization's id, member or invitation in a path is 404 whatever exists and changes nothing; a malformed id or query is 400, never a 500",
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const intruder = await world.signIn(app.url, 'mallory')
      const bob = await world.signIn(app.url, 'bob')
      await world.organization('acme', owner.accountId)
      await world.organization('evil', intruder.accountId)
      await world.join('acme', owner.accountId, bob.accountId, 'member')
      const pending = invitationIdOf(
        await owner.client.post('/auth/organizations/acme/invitations', {
          address: 'pat@people.example',
          role: 'member',
        }),
      )
      const probes: readonly (readonly ['get' | 'post', string, unknown?])[] = [
        ['get', '/auth/organizations/acme'],
        ['get', '/auth/organizations/acme/members'],
        ['get', '/auth/organizations/acme/invitations'],
        ['post', `/auth/organizations/acme/members/${bob.accountId}/role`, { role: 'admin' }],
        ['post', `/auth/organizations/acme/members/${bob.accountId}/remove`],
        ['post', '/auth/organizations/acme/invitations', { address: 'm@people.example', role: 'member' }],
        ['post', `/auth/organizations/acme/invitations/${pending}/revoke`],
        ['post', '/auth/organizations/acme/leave'],
        ['get', '/auth/organizations/no-such-organization'],
        ['get', '/auth/organizations/no-such-organization/members'],
        ['post', `/auth/organizations/evil/members/${bob.accountId}/role`, { role: 'admin' }],
        ['post', `/auth/organizations/evil/members/${bob.accountId}/remove`],
        ['post', `/auth/organizations/evil/invitations/${pending}/revoke`],
        ['post', `/auth/organizations/evil/invitations/${pending}/resend`],
      ]
      const details = new Set<unknown>()
      for (const [method, path, body] of probes) {
        const answer =
          method === 'get' ? await intruder.client.get(path) : await intruder.client.post(path, body)
        checkProblem(check, answer, 404, 'organizations.not_found')
        details.add((answer.json() as { detail?: unknown }).detail)
      }
      check(details.size === 1, 'the 404s tell an existing organization from a missing one')
      const members = membersOf(await owner.client.get('/auth/organizations/acme/members')).members
      check(
        members.length === 2 && members.every((m) => m.role !== 'admin'),
        "another organization's member was changed",
      )
      const invitations = (await owner.client.get('/auth/organizations/acme/invitations')).json() as {
        invitations: { invitationId: string }[]
      }
      check(
        invitations.invitations.some((item) => item.invitationId === pending),
        "another organization's invitation was revoked",
      )
      const malformed = [
        '/auth/organizations/-bad-/members',
        `/auth/organizations/acme/members?limit=abc`,
        `/auth/organizations/acme/members?limit=0`,
        `/auth/organizations/acme/members?cursor=x`,
      ]
      for (const path of malformed) {
        checkProblem(check, await owner.client.get(path), 400, 'organizations.invalid_input')
      }
      for (const path of [
        `/auth/organizations/acme/members/%20${bob.accountId}/remove`,
        '/auth/organizations/acme/invitations/short/revoke',
      ]) {
        checkProblem(check, await owner.client.post(path), 400, 'organizations.invalid_input')
      }
      // A member id over its 255 characters reaches the route (the router's parameter limit is not lower).
      const long = await owner.client.post(`/auth/organizations/acme/members/${'x'.repeat(300)}/remove`)
      checkProblem(check, long, 400, 'organizations.invalid_input')
      const created = await intruder.client.post('/auth/organizations', {
        name: 'x',
        organizationId: '../acme',
      })
      checkProblem(check, created, 400, 'organizations.invalid_input')
      // Ids in bodies: a body names no organization or actor; one that tries is refused, never read.
      const retargeted = await intruder.client.post(
        `/auth/organizations/evil/members/${intruder.accountId}/role`,
        {
          role: 'member',
          organizationId: 'acme',
        },
      )
      checkProblem(check, retargeted, 400, 'organizations.invalid_input')
      const taken = await intruder.client.post('/auth/organizations', {
        name: 'Acme',
        organizationId: 'acme',
      })
      checkProblem(check, taken, 409, 'organizations.duplicate')
      checkProblem(
        check,
        await intruder.client.get('/auth/organizations/acme'),
        404,
        'organizations.not_found',
      )
    },
  ),
]
