import type { OrganizationStores } from '@portcullis/core/organizations'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  accepting,
  addMember,
  newAddress,
  newInvitation,
  type OrganizationStoresFixture,
  ownedOrganization,
  T0,
} from './fixture.js'

type Case = ConformanceCase<OrganizationStoresFixture>

const CALLERS = 16

async function owners(store: OrganizationStores, organizationId: string, actor: string): Promise<number> {
  const listed = await store.listMembers({ organizationId, actorAccountId: actor, limit: 1000 })
  return listed.outcome === 'listed' ? listed.members.filter((m) => m.role === 'owner').length : -1
}

function tally(outcomes: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1
  return counts
}

export const organizationRaceCases: readonly Case[] = [
  conformanceCase(
    'memberships.concurrent-owner-demotions',
    'two owners demoting each other at once on two instances: one wins, one owner is left',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      for (let round = 0; round < 4; round += 1) {
        const { organizationId, ownerId } = await ownedOrganization(fixture)
        const second = await addMember(fixture, organizationId, ownerId, 'owner')
        const member = await addMember(fixture, organizationId, ownerId, 'member')
        const answers = await Promise.all([
          store.setRole({
            organizationId,
            actorAccountId: ownerId,
            accountId: second,
            role: 'member',
            now: T0,
          }),
          peer.setRole({
            organizationId,
            actorAccountId: second,
            accountId: ownerId,
            role: 'member',
            now: T0,
          }),
        ])
        const counts = tally(answers.map((answer) => answer.outcome))
        check(counts.changed === 1, `outcomes ${JSON.stringify(counts)}`)
        check((await owners(store, organizationId, member)) === 1, 'not exactly one owner is left')
      }
    },
  ),
  conformanceCase(
    'memberships.concurrent-owners-leave',
    'every owner leaving or being removed at once on two instances leaves at least one owner',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const second = await addMember(fixture, organizationId, ownerId, 'owner')
      const third = await addMember(fixture, organizationId, ownerId, 'owner')
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const answers = await Promise.all([
        store.leave({ organizationId, accountId: ownerId, now: T0 }),
        peer.leave({ organizationId, accountId: second, now: T0 }),
        store.removeMember({ organizationId, actorAccountId: second, accountId: third, now: T0 }),
        peer.removeMember({ organizationId, actorAccountId: third, accountId: ownerId, now: T0 }),
        store.leave({ organizationId, accountId: third, now: T0 }),
      ])
      const left = await owners(store, organizationId, member)
      check(left >= 1, `no owner is left (${answers.map((answer) => answer.outcome).join(', ')})`)
      check(
        answers.some((answer) => answer.outcome === 'last-owner'),
        `nobody was refused as last owner: ${answers.map((answer) => answer.outcome).join(', ')}`,
      )
    },
  ),
  conformanceCase(
    'invitations.concurrent-accept',
    `${CALLERS} accepts of one invitation at once on two instances make one membership`,
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const address = newAddress()
      const invitee = await fixture.createAccount({ address })
      const invitation = newInvitation(organizationId, ownerId, { address })
      await store.issueInvitation({ invitation, now: T0 })
      const answers = await Promise.all(
        Array.from({ length: CALLERS }, (_, index) =>
          (index % 2 === 0 ? store : peer).acceptInvitation(accepting(invitation, invitee)),
        ),
      )
      const counts = tally(answers.map((answer) => answer.outcome))
      check(
        counts.accepted === 1 && counts['not-found'] === CALLERS - 1,
        `outcomes ${JSON.stringify(counts)}`,
      )
      const memberships = await store.membershipsOf(invitee)
      check(memberships.length === 1, `${memberships.length} memberships`)
    },
  ),
  conformanceCase(
    'invitations.concurrent-accept-and-revoke',
    'an accept racing a revoke on two instances: a membership exactly when the accept won',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      for (let round = 0; round < 6; round += 1) {
        const { organizationId, ownerId } = await ownedOrganization(fixture)
        const address = newAddress()
        const invitee = await fixture.createAccount({ address })
        const invitation = newInvitation(organizationId, ownerId, { address })
        await store.issueInvitation({ invitation, now: T0 })
        const revoking = {
          organizationId,
          invitationId: invitation.invitationId,
          actorAccountId: ownerId,
          now: T0,
        }
        const [accepted, revoked] = await Promise.all([
          (round % 2 === 0 ? store : peer).acceptInvitation(accepting(invitation, invitee)),
          (round % 2 === 0 ? peer : store).revokeInvitation(revoking),
        ])
        const member = (await store.membershipsOf(invitee)).length
        const won = accepted.outcome === 'accepted'
        check(
          won !== (revoked.outcome === 'revoked'),
          `accept ${accepted.outcome}, revoke ${revoked.outcome}`,
        )
        check(member === (won ? 1 : 0), `accept ${accepted.outcome} left ${member} memberships`)
      }
    },
  ),
]
