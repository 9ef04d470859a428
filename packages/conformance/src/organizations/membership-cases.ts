import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  addMember,
  codeOf,
  eventually,
  hear,
  type OrganizationStoresFixture,
  ownedOrganization,
  roleOf,
  T0,
} from './fixture.js'

type Case = ConformanceCase<OrganizationStoresFixture>

export const membershipCases: readonly Case[] = [
  conformanceCase(
    'memberships.list-needs-membership',
    'members are listed by account id, paged, to members only: an outsider is told not-found',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const a = await addMember(fixture, organizationId, ownerId, 'member')
      const b = await addMember(fixture, organizationId, ownerId, 'admin')
      const outsider = await fixture.createAccount()
      const all = await store.listMembers({ organizationId, actorAccountId: a })
      const expected = [ownerId, a, b].sort()
      check(
        all.outcome === 'listed' && all.members.map((m) => m.accountId).join() === expected.join(),
        `listed ${JSON.stringify(all)}`,
      )
      const page = await store.listMembers({
        organizationId,
        actorAccountId: a,
        limit: 1,
        after: expected[0],
      })
      check(
        page.outcome === 'listed' && page.members.length === 1 && page.members[0]?.accountId === expected[1],
        'the second page is not the second member',
      )
      const foreign = await store.listMembers({ organizationId, actorAccountId: outsider })
      check(foreign.outcome === 'not-found', `an outsider listed the members: ${foreign.outcome}`)
    },
  ),
  conformanceCase(
    'memberships.grant-at-or-below-own',
    'an admin grants member or admin but never owner, and never acts on an owner; a member manages nobody',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const admin = await addMember(fixture, organizationId, ownerId, 'admin')
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const other = await addMember(fixture, organizationId, ownerId, 'member')
      const set = (actorAccountId: string, accountId: string, role: string) =>
        store.setRole({ organizationId, actorAccountId, accountId, role, now: T0 })
      check((await set(admin, member, 'owner')).outcome === 'rank-exceeded', 'an admin granted owner')
      check((await set(admin, ownerId, 'member')).outcome === 'rank-exceeded', 'an admin demoted the owner')
      check((await set(member, other, 'admin')).outcome === 'forbidden', 'a member granted a role')
      check((await set(member, member, 'admin')).outcome === 'forbidden', 'a member promoted itself')
      check((await roleOf(store, organizationId, member)) === 'member', 'a refused change took effect')
      const promoted = await set(admin, member, 'admin')
      check(
        promoted.outcome === 'changed' && promoted.membership.role === 'admin',
        'an admin could not grant admin',
      )
      const removal = await store.removeMember({
        organizationId,
        actorAccountId: admin,
        accountId: ownerId,
        now: T0,
      })
      check(removal.outcome === 'rank-exceeded', `an admin removed the owner: ${removal.outcome}`)
      check((await roleOf(store, organizationId, ownerId)) === 'owner', 'the owner lost its role')
      const code = await codeOf(set(ownerId, other, 'emperor'))
      check(code === 'organizations.invalid_input', `an unknown role answered ${code}`)
    },
  ),
  conformanceCase(
    'memberships.last-owner',
    'the last owner cannot be demoted, removed or leave; with a second owner each of these works once',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const demote = await store.setRole({
        organizationId,
        actorAccountId: ownerId,
        accountId: ownerId,
        role: 'admin',
        now: T0,
      })
      check(demote.outcome === 'last-owner', `the last owner demoted itself: ${demote.outcome}`)
      const leave = await store.leave({ organizationId, accountId: ownerId, now: T0 })
      check(leave.outcome === 'last-owner', `the last owner left: ${leave.outcome}`)
      const self = await store.removeMember({
        organizationId,
        actorAccountId: ownerId,
        accountId: ownerId,
        now: T0,
      })
      check(self.outcome === 'last-owner', `the last owner removed itself: ${self.outcome}`)
      check((await roleOf(store, organizationId, ownerId)) === 'owner', 'the organization lost its owner')
      const promoted = await store.setRole({
        organizationId,
        actorAccountId: ownerId,
        accountId: member,
        role: 'owner',
        now: T0,
      })
      check(promoted.outcome === 'changed', `an owner could not grant owner: ${promoted.outcome}`)
      const removed = await store.removeMember({
        organizationId,
        actorAccountId: member,
        accountId: ownerId,
        now: T0,
      })
      check(removed.outcome === 'removed', `a second owner could not remove the first: ${removed.outcome}`)
      const last = await store.leave({ organizationId, accountId: member, now: T0 })
      check(last.outcome === 'last-owner', `the new last owner left: ${last.outcome}`)
    },
  ),
  conformanceCase(
    'memberships.foreign-organization',
    'an admin of one organization changes nothing in another (ids in paths and bodies prove nothing)',
    async (fixture, check) => {
      const { store } = fixture
      const mine = await ownedOrganization(fixture)
      const theirs = await ownedOrganization(fixture)
      const victim = await addMember(fixture, theirs.organizationId, theirs.ownerId, 'member')
      const admin = await addMember(fixture, mine.organizationId, mine.ownerId, 'admin')
      const organizationId = theirs.organizationId
      const answers = [
        (
          await store.setRole({
            organizationId,
            actorAccountId: admin,
            accountId: victim,
            role: 'admin',
            now: T0,
          })
        ).outcome,
        (await store.removeMember({ organizationId, actorAccountId: admin, accountId: victim, now: T0 }))
          .outcome,
        (
          await store.removeMember({
            organizationId,
            actorAccountId: mine.ownerId,
            accountId: theirs.ownerId,
            now: T0,
          })
        ).outcome,
        (await store.leave({ organizationId, accountId: admin, now: T0 })).outcome,
      ]
      check(
        answers.every((answer) => answer === 'not-found'),
        `answered ${answers.join(', ')}`,
      )
      check((await roleOf(store, organizationId, victim)) === 'member', 'the victim changed')
      const gone = await store.removeMember({
        organizationId: mine.organizationId,
        actorAccountId: mine.ownerId,
        accountId: victim,
        now: T0,
      })
      check(gone.outcome === 'not-found', `removing a non-member answered ${gone.outcome}`)
    },
  ),
  conformanceCase(
    'memberships.changes-are-announced',
    'a role change, a removal and a leave each publish a membership notice that reaches the peer',
    async (fixture, check) => {
      if (fixture.peerNotices === undefined) return
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const changed = await addMember(fixture, organizationId, ownerId, 'member')
      const removed = await addMember(fixture, organizationId, ownerId, 'member')
      const leaving = await addMember(fixture, organizationId, ownerId, 'member')
      const listening = hear(fixture.peerNotices)
      try {
        await store.setRole({
          organizationId,
          actorAccountId: ownerId,
          accountId: changed,
          role: 'admin',
          now: T0,
        })
        await store.removeMember({ organizationId, actorAccountId: ownerId, accountId: removed, now: T0 })
        await store.leave({ organizationId, accountId: leaving, now: T0 })
        const told = (id: string) =>
          listening.heard.some((notice) => notice.kind === 'membership' && notice.accountId === id)
        check(
          await eventually(() => told(changed) && told(removed) && told(leaving)),
          'a change reached the peer without a membership notice',
        )
      } finally {
        listening.stop()
      }
    },
  ),
  conformanceCase(
    'memberships.account-deletion',
    'deleting an account removes its memberships; deleting the only owner of an organization with other members is refused (last-owner)',
    async (fixture, check) => {
      if (fixture.deleteAccount === undefined) return
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const refused = await fixture.deleteAccount(ownerId)
      check(
        refused.outcome === 'last-owner' && refused.organizationIds.includes(organizationId),
        `deleting the last owner answered ${JSON.stringify(refused)}`,
      )
      check(
        (await roleOf(store, organizationId, ownerId)) === 'owner',
        'the refused deletion removed the owner',
      )
      const deleted = await fixture.deleteAccount(member)
      check(deleted.outcome === 'deleted', `deleting a member answered ${deleted.outcome}`)
      check((await store.membershipsOf(member)).length === 0, 'the deleted account kept its membership')
      const listed = await store.listMembers({ organizationId, actorAccountId: ownerId })
      check(listed.outcome === 'listed' && listed.members.length === 1, 'the member is still listed')
      const alone = await fixture.deleteAccount(ownerId)
      check(alone.outcome === 'deleted', `deleting the only member answered ${alone.outcome}`)
      check((await store.getOrganization(organizationId)) === null, 'an organization without members stayed')
    },
  ),
]
