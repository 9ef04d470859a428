import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type Browser, browser } from './factor-client.js'
import { acceptBodyOf, membersOf, organizationWorld } from './organization-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const ACCEPT = '/auth/organizations/invitations/accept'

/** The same signed-in browser against another instance (the session store is shared). */
function onInstance(client: Browser, url: string): Browser {
  const other = browser(url)
  for (const [name, value] of client.cookies) other.cookies.set(name, value)
  return other
}

export const organizationRaceCases: readonly Case[] = [
  conformanceCase(
    'adapter.organizations-races',
    'on two instances over one store: two accepts of one code give one membership; an accept racing a revoke, one membership or none; two owners demoting each other keep an owner',
    async (fixture, check) => {
      const world = organizationWorld()
      const first = await fixture.start(world.scenario)
      const second = await fixture.start(world.scenario)
      const owner = await world.signIn(first.url, 'olive')
      await world.organization('acme', owner.accountId)
      const bob = await world.signIn(first.url, 'bob')
      await world.holdAddress(bob.accountId, 'bob@people.example')
      const bobThere = onInstance(bob.client, second.url)
      await owner.client.post('/auth/organizations/acme/invitations', {
        address: 'bob@people.example',
        role: 'member',
      })
      const accept = acceptBodyOf(await world.mailTo('bob@people.example'))
      const both = await Promise.all([bob.client.post(ACCEPT, accept), bobThere.post(ACCEPT, accept)])
      const statuses = both.map((answer) => answer.status).sort()
      check(JSON.stringify(statuses) === '[200,404]', `two accepts answered ${statuses.join(' and ')}`)

      const carol = await world.signIn(first.url, 'carol')
      await world.holdAddress(carol.accountId, 'carol@people.example')
      const pending = (
        (
          await owner.client.post('/auth/organizations/acme/invitations', {
            address: 'carol@people.example',
            role: 'member',
          })
        ).json() as { invitationId: string }
      ).invitationId
      const carolMail = acceptBodyOf(await world.mailTo('carol@people.example'))
      const [accepted, revoked] = await Promise.all([
        carol.client.post(ACCEPT, carolMail),
        onInstance(owner.client, second.url).post(`/auth/organizations/acme/invitations/${pending}/revoke`),
      ])
      const members = membersOf(await owner.client.get('/auth/organizations/acme/members')).members
      const carolIn = members.some((member) => member.accountId === carol.accountId)
      check(
        (accepted.status === 200 && revoked.status === 404 && carolIn) ||
          (accepted.status === 404 && revoked.status === 204 && !carolIn),
        `accept ${accepted.status} racing revoke ${revoked.status}, member: ${carolIn}`,
      )

      await owner.client.post(`/auth/organizations/acme/members/${bob.accountId}/role`, { role: 'owner' })
      const demotions = await Promise.all([
        owner.client.post(`/auth/organizations/acme/members/${bob.accountId}/role`, { role: 'member' }),
        bobThere.post(`/auth/organizations/acme/members/${owner.accountId}/role`, { role: 'member' }),
      ])
      const owners = membersOf(await owner.client.get('/auth/organizations/acme/members?limit=1000'))
      const ownerCount = owners.members.filter((member) => member.role === 'owner').length
      const codes = demotions.map((answer) => answer.status).sort()
      check(ownerCount >= 1, 'two owners demoting each other left none')
      check(
        codes[0] === 200 && (codes[1] === 409 || codes[1] === 403 || codes[1] === 404),
        `the demotions answered ${codes.join(' and ')}`,
      )
    },
  ),
  conformanceCase(
    'adapter.organizations-invitation-limit',
    'an inviter over its limit is 429 organizations.rate_limited with Retry-After, and the refused invitation is neither stored nor mailed',
    async (fixture, check) => {
      const world = organizationWorld({ perInviter: { limit: 2, windowSeconds: 3600 } })
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      const invite = (address: string) =>
        owner.client.post('/auth/organizations/acme/invitations', { address, role: 'member' })
      check((await invite('a@people.example')).status === 201, 'the first invitation was refused')
      check((await invite('b@people.example')).status === 201, 'the second invitation was refused')
      const over = await invite('c@people.example')
      checkProblem(check, over, 429, 'organizations.rate_limited')
      check(/^\d+$/.test(over.headers['retry-after'] ?? ''), 'a 429 without Retry-After')
      const pending = (await owner.client.get('/auth/organizations/acme/invitations')).json() as {
        invitations: { address: string }[]
      }
      check(
        pending.invitations.length === 2 &&
          !pending.invitations.some((item) => item.address === 'c@people.example'),
        'the refused invitation was stored',
      )
      const mailed = await world.mailTo('c@people.example').then(
        () => true,
        () => false,
      )
      check(!mailed, 'the refused invitation was mailed')
    },
  ),
]
