import { CodeKeyRing } from '@portcullis/core/codes'
import { PostgresOrganizationStore } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoAccountId } from '../src/accounts/local-accounts.js'
import { DEMO_TENANTS, DEMO_USERS } from '../src/directory/demo-directory.js'
import { seedDemoOrganizations } from '../src/organizations/demo-organizations.js'
import { REFERENCE_ROLES } from '../src/organizations/organization-wiring.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The demo directory's tenants as real memberships: the first start makes the organizations and the demo
 * users' memberships; later starts (or a second instance) leave them as their members left them, and an
 * organization deleted since is made again, with nothing else touched.
 */
let app: TestApp
let store: PostgresOrganizationStore

const members = DEMO_USERS.map((user) => ({
  username: user.username,
  accountId: demoAccountId(user.username),
  email: `${user.username}@demo.portcullis.invalid`,
}))
const seedAgain = () =>
  seedDemoOrganizations({
    store,
    // The app's own ring: the seed's invitations are digested as the app digests them.
    keyRing: new CodeKeyRing(app.keys.emailCodeKey),
    members,
  })
const rolesOf = async (accountId: string) =>
  Object.fromEntries((await store.membershipsOf(accountId)).map((each) => [each.organizationId, each.role]))

describe('the demo organizations', () => {
  beforeAll(async () => {
    app = await startTestApp({ demoIdp: { enabled: false, port: 0 } })
    store = new PostgresOrganizationStore({ client: app.postgres, roles: REFERENCE_ROLES })
  }, 120_000)
  afterAll(async () => {
    await app?.close()
  })

  it('the first start made every demo tenant an organization, with the demo users as members', async () => {
    for (const tenant of DEMO_TENANTS) {
      expect((await store.getOrganization(tenant.id))?.name).toBe(tenant.name)
    }
    for (const user of DEMO_USERS) {
      const expected = Object.fromEntries(
        Object.entries(user.tenants).map(([tenant, roles]) => [tenant, roles[0]]),
      )
      expect(await rolesOf(demoAccountId(user.username))).toEqual(expected)
    }
  })

  it('seeding again changes nothing: a removed member stays removed, a renamed organization keeps its name', async () => {
    const alice = demoAccountId('alice')
    const bob = demoAccountId('bob')
    const now = new Date()
    expect(
      (await store.removeMember({ organizationId: 'acme', actorAccountId: alice, accountId: bob, now }))
        .outcome,
    ).toBe('removed')
    expect(
      (
        await store.renameOrganization({
          organizationId: 'globex',
          actorAccountId: bob,
          name: 'Globex Ltd',
          now,
        })
      ).outcome,
    ).toBe('renamed')
    expect(await seedAgain()).toEqual([])
    expect(await rolesOf(bob)).toEqual({ globex: 'owner' })
    expect((await store.getOrganization('globex'))?.name).toBe('Globex Ltd')
  })

  it('an organization deleted since is made again with its demo members; the others are untouched', async () => {
    const carol = demoAccountId('carol')
    const now = new Date()
    expect(
      (await store.deleteOrganization({ organizationId: 'initech', actorAccountId: carol, now })).outcome,
    ).toBe('deleted')
    expect(await store.getOrganization('initech')).toBeNull()
    expect(await seedAgain()).toEqual([])
    expect(await rolesOf(carol)).toEqual({ initech: 'owner' })
    expect(await rolesOf(demoAccountId('bob'))).toEqual({ globex: 'owner' })
  })

  it('a member without a verified address is left out, and said', async () => {
    const now = new Date()
    await store.deleteOrganization({ organizationId: 'acme', actorAccountId: demoAccountId('alice'), now })
    const notices = await seedDemoOrganizations({
      store,
      keyRing: new CodeKeyRing(app.keys.emailCodeKey),
      members: members.map((member) =>
        member.username === 'bob' ? { username: member.username, accountId: member.accountId } : member,
      ),
    })
    expect(notices).toEqual(['demo user bob: no verified address, so not a member of acme'])
    expect(await rolesOf(demoAccountId('alice'))).toMatchObject({ acme: 'owner' })
    expect(await rolesOf(demoAccountId('bob'))).toEqual({ globex: 'owner' })
  })
})
