import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { organizationMcpWorld } from './active-organization-world.js'
import { call } from './http-client.js'
import { connect, read } from './mcp-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

export const organizationMcpCases: readonly Case[] = [
  conformanceCase(
    'adapter.mcp-organization-tenants',
    'tenant://{tenantId}/report over membershipResolver: the owner and an admin read their organization, a member of another and an outsider are refused, and a removed admin is refused on the next read',
    async (fixture, check) => {
      const world = organizationMcpWorld()
      const app = await fixture.start(world.scenario)
      const owner = await world.signIn(app.url, 'olive')
      const admin = await world.signIn(app.url, 'adam')
      const outsider = await world.signIn(app.url, 'otto')
      await world.organization('acme', owner.accountId)
      await world.organization('globex', outsider.accountId)
      await world.join('acme', owner.accountId, admin.accountId, 'admin')
      const reader = async (accountId: string) => (await connect(app.url, world.tokenFor(accountId))).client

      const ownerClient = await reader(owner.accountId)
      const own = await read(ownerClient, 'tenant://acme/report')
      check(JSON.parse(own.text ?? '{}').tenant === 'acme', `the owner read acme: ${JSON.stringify(own)}`)
      const foreign = await read(ownerClient, 'tenant://globex/report')
      check(
        foreign.code === -32603 && foreign.status === 403,
        `the owner read globex: ${JSON.stringify(foreign)}`,
      )
      const escaped = await read(ownerClient, 'tenant://globex%2F..%2Facme/report')
      check(escaped.code !== undefined, `an encoded path was read: ${JSON.stringify(escaped)}`)
      await ownerClient.close()

      const outsiderClient = await reader(outsider.accountId)
      const refused = await read(outsiderClient, 'tenant://acme/report')
      check(
        refused.code === -32603 && refused.status === 403,
        `the outsider read acme: ${JSON.stringify(refused)}`,
      )
      await outsiderClient.close()

      const adminToken = world.tokenFor(admin.accountId)
      const adminClient = await reader(admin.accountId)
      const granted = await read(adminClient, 'tenant://acme/report')
      check(
        JSON.parse(granted.text ?? '{}').for === admin.accountId,
        `the admin read acme: ${JSON.stringify(granted)}`,
      )
      const removed = await world.store.removeMember({
        organizationId: 'acme',
        actorAccountId: owner.accountId,
        accountId: admin.accountId,
        now: new Date(world.clock()),
      })
      check(removed.outcome === 'removed', `remove: ${removed.outcome}`)
      const gone = await read(adminClient, 'tenant://acme/report')
      check(gone.code === -32603 && gone.status === 403, `a removed admin read acme: ${JSON.stringify(gone)}`)
      await adminClient.close()
      const overHttp = await call(app.url, '/tenants/acme/report', {
        headers: { authorization: `Bearer ${adminToken}` },
      })
      check(overHttp.status === 403, `a removed admin's GET answered ${overHttp.status}`)
    },
  ),
]
