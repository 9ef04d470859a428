import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE } from './account-world.js'
import { activeOrganizationWorld } from './active-organization-world.js'
import { call } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

interface ActiveBody {
  readonly organizationId: string | null
  readonly role: string | null
}

interface WorkspaceBody {
  readonly active: { readonly organizationId: string; readonly roles: readonly string[] } | null
  readonly tenants: readonly string[]
}

const PATH = '/auth/active-organization'

export const activeOrganizationCases: readonly Case[] = [
  conformanceCase(
    'adapter.active-organization-set',
    "a member sets the session's active organization (200, the stored role), reads it back and in route code's snapshot, and clears it with null",
    async (fixture, check) => {
      const world = activeOrganizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      await world.organization('beta', owner.accountId)
      const none = await owner.client.get(PATH)
      check(none.status === 200, `GET answered ${none.status}`)
      check((none.headers['cache-control'] ?? '').includes('no-store'), 'GET without no-store')
      const empty = none.json() as ActiveBody
      check(empty.organizationId === null && empty.role === null, `a new session has ${none.text}`)
      const set = await owner.client.post(PATH, { organizationId: 'acme' })
      check(set.status === 200, `POST answered ${set.status} ${set.text}`)
      const chosen = set.json() as ActiveBody
      check(chosen.organizationId === 'acme' && chosen.role === 'owner', `POST answered ${set.text}`)
      const read = (await owner.client.get(PATH)).json() as ActiveBody
      check(
        read.organizationId === 'acme' && read.role === 'owner',
        `GET after POST: ${JSON.stringify(read)}`,
      )
      const workspace = (await owner.client.get('/workspace')).json() as WorkspaceBody
      check(
        workspace.active?.organizationId === 'acme' && workspace.active.roles.includes('owner'),
        `route code read ${JSON.stringify(workspace)}`,
      )
      const switched = await owner.client.post(PATH, { organizationId: 'beta' })
      check((switched.json() as ActiveBody).organizationId === 'beta', `switching answered ${switched.text}`)
      const cleared = await owner.client.post(PATH, { organizationId: null })
      check(cleared.status === 200, `clearing answered ${cleared.status}`)
      const after = (await owner.client.get(PATH)).json() as ActiveBody
      check(after.organizationId === null && after.role === null, `after clearing: ${JSON.stringify(after)}`)
      const plain = (await owner.client.get('/workspace')).json() as WorkspaceBody
      check(
        plain.active === null && plain.tenants.includes('acme'),
        `route code after clearing: ${JSON.stringify(plain)}`,
      )
    },
  ),
  conformanceCase(
    'adapter.active-organization-refusals',
    "another account's organization and an unknown one are the same 404, a malformed id or a smuggled role 400, cross-site 403, no session 401; none changes the choice",
    async (fixture, check) => {
      const world = activeOrganizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const intruder = await world.signIn(app.url, 'mallory')
      await world.organization('acme', owner.accountId)
      await world.organization('evil', intruder.accountId)
      const kept = await intruder.client.post(PATH, { organizationId: 'evil' })
      check(kept.status === 200, `the intruder's own organization answered ${kept.status}`)
      const details = new Set<string>()
      for (const organizationId of ['acme', 'no-such-organization']) {
        const refused = await intruder.client.post(PATH, { organizationId })
        checkProblem(check, refused, 404, 'organizations.not_found')
        details.add(String((refused.json() as { detail?: unknown }).detail))
      }
      check(details.size === 1, 'an existing and an unknown organization are told apart')
      for (const body of [
        { organizationId: '../acme' },
        { organizationId: 7 },
        { organizationId: 'acme', role: 'owner' },
        {},
        ['acme'],
      ]) {
        const malformed = await intruder.client.post(PATH, body)
        checkProblem(check, malformed, 400, 'organizations.invalid_input')
      }
      const crossSite = await intruder.client.post(PATH, { organizationId: null }, CROSS_SITE)
      check(crossSite.status === 403, `a cross-site POST answered ${crossSite.status}`)
      const still = (await intruder.client.get(PATH)).json() as ActiveBody
      check(
        still.organizationId === 'evil' && still.role === 'owner',
        `a refused request changed the choice: ${JSON.stringify(still)}`,
      )
      const workspace = (await intruder.client.get('/workspace')).json() as WorkspaceBody
      check(!workspace.tenants.includes('acme'), 'the intruder holds acme')
      const anonymous = await call(app.url, PATH, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: 'https://app.example',
          'sec-fetch-site': 'same-origin',
        },
        body: JSON.stringify({ organizationId: 'acme' }),
      })
      check(anonymous.status === 401, `an anonymous POST answered ${anonymous.status}`)
      check((await call(app.url, PATH)).status === 401, 'an anonymous GET was answered')
    },
  ),
  conformanceCase(
    'adapter.active-organization-removed-member',
    "a member's active organization shows its stored role, never an owner's, and is gone on the next request once the member is removed",
    async (fixture, check) => {
      const world = activeOrganizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const member = await world.signIn(app.url, 'mia')
      await world.organization('acme', owner.accountId)
      await world.join('acme', owner.accountId, member.accountId, 'member')
      const set = await member.client.post(PATH, { organizationId: 'acme' })
      const chosen = set.json() as ActiveBody
      check(chosen.organizationId === 'acme' && chosen.role === 'member', `the member set ${set.text}`)
      const before = (await member.client.get('/workspace')).json() as WorkspaceBody
      check(
        before.active?.organizationId === 'acme' &&
          before.active.roles.includes('member') &&
          !before.active.roles.includes('owner'),
        `the member's workspace: ${JSON.stringify(before)}`,
      )
      const removed = await world.store.removeMember({
        organizationId: 'acme',
        actorAccountId: owner.accountId,
        accountId: member.accountId,
        now: new Date(world.clock()),
      })
      check(removed.outcome === 'removed', `remove: ${removed.outcome}`)
      const after = (await member.client.get(PATH)).json() as ActiveBody
      check(
        after.organizationId === null && after.role === null,
        `a removed member reads ${JSON.stringify(after)}`,
      )
      const workspace = (await member.client.get('/workspace')).json() as WorkspaceBody
      check(
        workspace.active === null && !workspace.tenants.includes('acme'),
        `a removed member's route code read ${JSON.stringify(workspace)}`,
      )
      const again = await member.client.post(PATH, { organizationId: 'acme' })
      checkProblem(check, again, 404, 'organizations.not_found')
    },
  ),
  conformanceCase(
    'adapter.active-organization-outage-openapi',
    'with the membership store down, reading and setting the choice answer 503 with Retry-After and change nothing; the OpenAPI document has both routes with their problems',
    async (fixture, check) => {
      const world = activeOrganizationWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      await world.organization('acme', owner.accountId)
      await world.organization('beta', owner.accountId)
      await owner.client.post(PATH, { organizationId: 'acme' })
      world.outage.down = true
      for (const answer of [
        await owner.client.get(PATH),
        await owner.client.post(PATH, { organizationId: 'beta' }),
      ]) {
        check(answer.status === 503, `an outage answered ${answer.status}`)
        check(answer.headers['retry-after'] !== undefined, 'an outage without Retry-After')
      }
      world.outage.down = false
      const kept = (await owner.client.get(PATH)).json() as ActiveBody
      check(kept.organizationId === 'acme', `the outage changed the choice: ${JSON.stringify(kept)}`)
      const document = (await owner.client.get('/openapi.json')).json() as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
      }
      for (const method of ['get', 'post']) {
        const operation = document.paths[PATH]?.[method]
        check(operation !== undefined, `${method.toUpperCase()} ${PATH} is not documented`)
        check(
          operation?.responses['401'] !== undefined && operation.responses['503'] !== undefined,
          `${method.toUpperCase()} ${PATH} lacks its 401 or 503`,
        )
      }
      check(document.paths[PATH]?.post?.responses['404'] !== undefined, 'POST lacks its 404')
    },
  ),
]
