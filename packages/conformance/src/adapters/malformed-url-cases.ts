import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { activityWorld, signedInDevice } from './activity-world.js'
import { administrationWorld } from './administration-world.js'
import { type Browser, passwordStepUp, signedInBrowser } from './factor-client.js'
import type { Answer } from './http-client.js'
import { membersOf, organizationWorld } from './organization-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

/**
 * Path segments whose percent-encoding does not decode: a truncated UTF-8 sequence, a lone `%` and
 * an escape that is no UTF-8 at all. Each is sent as is (the client does not re-encode a path).
 */
const UNDECODABLE = ['%E0%A4%A', '%', '%C3%28'] as const

/** 400 `request.malformed_url` problem+json, the path never echoed, the header baseline present. */
function checkMalformed(check: Check, answer: Answer, segment: string, where: string): void {
  check(answer.status !== 500, `${where} with ${segment} answered 500`)
  checkProblem(check, answer, 400, 'request.malformed_url')
  check(!answer.text.includes(segment), `${where}: the problem echoes the path`)
  check(answer.headers['x-content-type-options'] === 'nosniff', `${where}: no header baseline`)
}

export const malformedUrlCases: readonly Case[] = [
  conformanceCase(
    'adapter.malformed-url-organization',
    'an undecodable member id in an organization member path is 400 request.malformed_url problem+json, never a 500, and changes nothing',
    async (fixture, check) => {
      const world = organizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const bob = await world.signIn(app.url, 'bob')
      await world.organization('acme', owner.accountId)
      await world.join('acme', owner.accountId, bob.accountId, 'member')
      for (const segment of UNDECODABLE) {
        for (const [action, body] of [
          ['remove', undefined],
          ['role', { role: 'admin' }],
        ] as const) {
          const path = `/auth/organizations/acme/members/${segment}/${action}`
          checkMalformed(check, await owner.client.post(path, body), segment, `member ${action}`)
        }
        const listed = await owner.client.get(`/auth/organizations/${segment}/members`)
        checkMalformed(check, listed, segment, 'organization members')
      }
      // an escaped `%` decodes: the id reaches the route, which has no such member; the URL is not malformed
      const escaped = await owner.client.post('/auth/organizations/acme/members/%25/remove')
      checkProblem(check, escaped, 404, 'organizations.not_found')
      const members = membersOf(await owner.client.get('/auth/organizations/acme/members')).members
      check(
        members.length === 2 && members.some((m) => m.accountId === bob.accountId && m.role === 'member'),
        'a malformed path changed the members',
      )
    },
  ),
  conformanceCase(
    'adapter.malformed-url-activity',
    'an undecodable session id in the activity sign-out path is 400 request.malformed_url problem+json and signs nothing out',
    async (fixture, check) => {
      const world = await activityWorld()
      const app = await fixture.start(world.scenario)
      const laptop = await signedInBrowser(app.url, 'alice')
      const phone: Browser = await signedInDevice(app.url, 'alice', 'phone')
      for (const segment of UNDECODABLE) {
        const answer = await laptop.post(`/auth/activity/sessions/${segment}/sign-out`)
        checkMalformed(check, answer, segment, 'session sign-out')
      }
      check((await laptop.get('/me')).status === 200, 'a malformed path signed the laptop out')
      check((await phone.get('/me')).status === 200, 'a malformed path signed the phone out')
    },
  ),
  conformanceCase(
    'adapter.malformed-url-administration',
    'an undecodable account id in an administration path is 400 request.malformed_url problem+json, for a view and a stepped-up change, and changes nothing',
    async (fixture, check) => {
      const world = await administrationWorld()
      const app = await fixture.start(world.scenario)
      const root = await signedInBrowser(app.url, 'root')
      const alice = await signedInBrowser(app.url, 'alice')
      const rootId = ((await root.get('/me')).json() as { id: string }).id
      const aliceId = ((await alice.get('/me')).json() as { id: string }).id
      world.administrators.add(rootId)
      for (const segment of UNDECODABLE) {
        checkMalformed(check, await root.get(`/auth/admin/accounts/${segment}`), segment, 'account view')
        const disabled = await root.post(
          `/auth/admin/accounts/${segment}/disable`,
          { reason: 'support ticket 4711' },
          { 'portcullis-step-up': await passwordStepUp(root, 'administration') },
        )
        checkMalformed(check, disabled, segment, 'account disable')
      }
      check((await world.accounts.getAccount(aliceId))?.status === 'active', 'a malformed path changed alice')
      check((await alice.get('/me')).status === 200, 'a malformed path signed alice out')
    },
  ),
]
