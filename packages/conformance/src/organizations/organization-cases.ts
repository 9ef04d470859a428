import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  addMember,
  codeOf,
  eventually,
  hear,
  newInvitation,
  newOrganizationId,
  type OrganizationStoresFixture,
  ownedOrganization,
  roleOf,
  T0,
} from './fixture.js'

type Case = ConformanceCase<OrganizationStoresFixture>

export const organizationCases: readonly Case[] = [
  conformanceCase(
    'organizations.create-with-owner',
    'creating an organization makes its creator its one owner, seen by every instance',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const ownerId = await fixture.createAccount()
      const organizationId = newOrganizationId()
      const created = await store.createOrganization({
        organizationId,
        name: 'Acme',
        ownerAccountId: ownerId,
        now: T0,
      })
      check(created.outcome === 'created', `answered ${created.outcome}`)
      const org = await peer.getOrganization(organizationId)
      check(org?.name === 'Acme' && org.createdAt.getTime() === T0.getTime(), 'the peer does not see it')
      check((await roleOf(peer, organizationId, ownerId)) === 'owner', 'the creator is not its owner')
      const listed = await peer.organizationsOf(ownerId)
      check(
        listed.length === 1 && listed[0]?.organizationName === 'Acme' && listed[0].role === 'owner',
        `organizationsOf answered ${JSON.stringify(listed)}`,
      )
      check((await store.getOrganization(newOrganizationId())) === null, 'an unknown id found something')
    },
  ),
  conformanceCase(
    'organizations.duplicate-and-unknown-owner',
    'a stored id is organizations.duplicate, an unknown owner is account-not-found, and neither writes',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const other = await fixture.createAccount()
      const code = await codeOf(
        store.createOrganization({ organizationId, name: 'Again', ownerAccountId: other, now: T0 }),
      )
      check(code === 'organizations.duplicate', `a duplicate answered ${code}`)
      check(
        (await store.getOrganization(organizationId))?.name === 'Acme',
        'the duplicate overwrote the name',
      )
      check((await store.membershipsOf(other)).length === 0, 'the duplicate made a membership')
      const ghost = newOrganizationId()
      const unknown = await store.createOrganization({
        organizationId: ghost,
        name: 'Ghost',
        ownerAccountId: `nobody-${ownerId}`,
        now: T0,
      })
      check(unknown.outcome === 'account-not-found', `an unknown owner answered ${unknown.outcome}`)
      check((await store.getOrganization(ghost)) === null, 'an organization without owner was stored')
    },
  ),
  conformanceCase(
    'organizations.invalid-input',
    'malformed ids, names and dates are organizations.invalid_input and write nothing',
    async (fixture, check) => {
      const { store } = fixture
      const ownerId = await fixture.createAccount()
      const bad = [
        { organizationId: 'a/b', name: 'Acme', ownerAccountId: ownerId, now: T0 },
        { organizationId: '', name: 'Acme', ownerAccountId: ownerId, now: T0 },
        { organizationId: newOrganizationId(), name: ' padded ', ownerAccountId: ownerId, now: T0 },
        { organizationId: newOrganizationId(), name: 'Acme\nBcc: x', ownerAccountId: ownerId, now: T0 },
        {
          organizationId: newOrganizationId(),
          name: 'Acme',
          ownerAccountId: ownerId,
          now: new Date(Number.NaN),
        },
      ]
      for (const request of bad) {
        const code = await codeOf(store.createOrganization(request))
        check(code === 'organizations.invalid_input', `answered ${code}`)
      }
      check((await store.membershipsOf(ownerId)).length === 0, 'a refused request made a membership')
    },
  ),
  conformanceCase(
    'organizations.rename-needs-permission',
    'an admin may rename; a member and an outsider may not, and the outsider is told not-found',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const admin = await addMember(fixture, organizationId, ownerId, 'admin')
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const outsider = await fixture.createAccount()
      const by = (actorAccountId: string, name: string) =>
        store.renameOrganization({ organizationId, actorAccountId, name, now: T0 })
      check((await by(member, 'Mine')).outcome === 'forbidden', 'a member renamed')
      check((await by(outsider, 'Mine')).outcome === 'not-found', 'an outsider was not told not-found')
      const renamed = await by(admin, 'Acme Ltd')
      check(renamed.outcome === 'renamed', `the admin was refused: ${renamed.outcome}`)
      check((await store.getOrganization(organizationId))?.name === 'Acme Ltd', 'the name did not change')
    },
  ),
  conformanceCase(
    'organizations.delete',
    'only an owner deletes; its members and invitations go with it and every member gets a notice',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const admin = await addMember(fixture, organizationId, ownerId, 'admin')
      const invitation = newInvitation(organizationId, ownerId)
      await store.issueInvitation({ invitation, now: T0 })
      const listening = fixture.peerNotices === undefined ? undefined : hear(fixture.peerNotices)
      try {
        const refused = await store.deleteOrganization({ organizationId, actorAccountId: admin, now: T0 })
        check(refused.outcome === 'forbidden', `an admin deleted: ${refused.outcome}`)
        const deleted = await store.deleteOrganization({ organizationId, actorAccountId: ownerId, now: T0 })
        check(
          deleted.outcome === 'deleted' &&
            [...deleted.memberAccountIds].sort().join() === [admin, ownerId].sort().join(),
          `answered ${JSON.stringify(deleted)}`,
        )
        check((await peer.getOrganization(organizationId)) === null, 'the organization is still there')
        check((await peer.membershipsOf(admin)).length === 0, 'a membership outlived its organization')
        const listed = await peer.listInvitations({ organizationId, actorAccountId: ownerId, now: T0 })
        check(listed.outcome === 'not-found', `its invitations answered ${listed.outcome}`)
        if (listening !== undefined) {
          const told = (id: string) =>
            listening.heard.some((notice) => notice.kind === 'membership' && notice.accountId === id)
          check(await eventually(() => told(admin) && told(ownerId)), 'a member got no membership notice')
        }
      } finally {
        listening?.stop()
      }
    },
  ),
]
