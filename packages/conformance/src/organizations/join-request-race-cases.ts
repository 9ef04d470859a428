import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { accepting, newInvitation, ownedOrganization, roleOf, T0 } from './fixture.js'
import {
  asker,
  type JoinRequestStoresFixture,
  newJoinRequest,
  pendingIds,
  pendingRequest,
} from './join-request-fixture.js'

type Case = ConformanceCase<JoinRequestStoresFixture>

const ROUNDS = 4
const CALLERS = 8

const owned = ownedOrganization

function tally(outcomes: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1
  return counts
}

export const joinRequestRaceCases: readonly Case[] = [
  conformanceCase(
    'join-requests.concurrent-approve-decline',
    'an approval and a decline of one request on two instances: exactly one wins, a membership iff approved',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      for (let round = 0; round < ROUNDS; round += 1) {
        const { organizationId, ownerId } = await owned(fixture)
        const request = await pendingRequest(fixture, organizationId)
        const decide = (on: typeof store, decision: 'approve' | 'decline') =>
          on.decideJoinRequest({
            organizationId,
            requestId: request.requestId,
            actorAccountId: ownerId,
            decision,
            now: T0,
          })
        const [first, second] = round % 2 === 0 ? [store, peer] : [peer, store]
        const answers = await Promise.all([decide(first, 'approve'), decide(second, 'decline')])
        const counts = tally(answers.map((answer) => answer.outcome))
        const won = (counts.approved ?? 0) + (counts.declined ?? 0)
        check(won === 1 && counts['not-found'] === 1, `outcomes ${JSON.stringify(counts)}`)
        const role = await roleOf(store, organizationId, request.accountId)
        check(
          counts.approved === 1 ? role === 'member' : role === undefined,
          `outcomes ${JSON.stringify(counts)} left the role ${role}`,
        )
      }
    },
  ),
  conformanceCase(
    'join-requests.concurrent-approvals',
    'four approvals of one request on two instances: one approved, the others not-found, one membership',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      for (let round = 0; round < ROUNDS; round += 1) {
        const { organizationId, ownerId } = await owned(fixture)
        const request = await pendingRequest(fixture, organizationId)
        const approve = (on: typeof store) =>
          on.decideJoinRequest({
            organizationId,
            requestId: request.requestId,
            actorAccountId: ownerId,
            decision: 'approve',
            now: T0,
          })
        const answers = await Promise.all([approve(store), approve(peer), approve(store), approve(peer)])
        const counts = tally(answers.map((answer) => answer.outcome))
        // The others find the request decided: not-found, never a second decision of it.
        check(counts.approved === 1 && counts['not-found'] === 3, `outcomes ${JSON.stringify(counts)}`)
        const memberships = (await store.membershipsOf(request.accountId)).filter(
          (membership) => membership.organizationId === organizationId,
        )
        check(memberships.length === 1, `${memberships.length} memberships`)
      }
    },
  ),
  conformanceCase(
    'join-requests.concurrent-requests',
    'one account asking many times at once on two instances: one pending request, every answer names it',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const { accountId, address } = await asker(fixture)
      const answers = await Promise.all(
        Array.from({ length: CALLERS }, (_, index) =>
          (index % 2 === 0 ? store : peer).requestToJoin({
            joinRequest: newJoinRequest(organizationId, accountId, address),
            maxPendingPerOrganization: 100,
          }),
        ),
      )
      const counts = tally(answers.map((answer) => answer.outcome))
      check(counts.requested === 1 && counts.pending === CALLERS - 1, `outcomes ${JSON.stringify(counts)}`)
      const ids = await pendingIds(store, organizationId, ownerId)
      const named = new Set(
        answers.map((answer) => ('joinRequest' in answer ? answer.joinRequest.requestId : '')),
      )
      check(ids.length === 1 && named.size === 1 && named.has(ids[0] ?? '?'), `pending ${ids.join(', ')}`)
    },
  ),
  conformanceCase(
    'join-requests.concurrent-limit',
    'many accounts asking at once on two instances never exceed the pending limit',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const askers = await Promise.all(Array.from({ length: CALLERS }, () => asker(fixture)))
      const answers = await Promise.all(
        askers.map(({ accountId, address }, index) =>
          (index % 2 === 0 ? store : peer).requestToJoin({
            joinRequest: newJoinRequest(organizationId, accountId, address),
            maxPendingPerOrganization: 3,
          }),
        ),
      )
      const counts = tally(answers.map((answer) => answer.outcome))
      check(
        counts.requested === 3 && counts['limit-reached'] === CALLERS - 3,
        `outcomes ${JSON.stringify(counts)}`,
      )
      check((await pendingIds(store, organizationId, ownerId)).length === 3, 'the limit was exceeded')
    },
  ),
  conformanceCase(
    'join-requests.race-with-invitation',
    'a request, its approval and an accepted invitation of the same account racing: one membership',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      for (let round = 0; round < ROUNDS; round += 1) {
        const { organizationId, ownerId } = await owned(fixture)
        const { accountId, address } = await asker(fixture)
        const invitation = newInvitation(organizationId, ownerId, { role: 'admin', address })
        const issued = await store.issueInvitation({ invitation, now: T0 })
        check(issued.outcome === 'issued', `issuing answered ${issued.outcome}`)
        const joinRequest = newJoinRequest(organizationId, accountId, address)
        const [asked, accepted] = await Promise.all([
          store.requestToJoin({ joinRequest, maxPendingPerOrganization: 10 }),
          peer.acceptInvitation(accepting(invitation, accountId)),
        ])
        check(accepted.outcome === 'accepted', `accepting answered ${accepted.outcome}`)
        check(
          asked.outcome === 'requested' || asked.outcome === 'already-member',
          `asking answered ${asked.outcome}`,
        )
        const approved = await peer.decideJoinRequest({
          organizationId,
          requestId: joinRequest.requestId,
          actorAccountId: ownerId,
          decision: 'approve',
          now: T0,
        })
        check(
          asked.outcome === 'requested'
            ? approved.outcome === 'already-member'
            : approved.outcome === 'not-found',
          `asking ${asked.outcome} then approving answered ${approved.outcome}`,
        )
        const memberships = (await store.membershipsOf(accountId)).filter(
          (membership) => membership.organizationId === organizationId,
        )
        check(
          memberships.length === 1 && memberships[0]?.role === 'admin',
          `memberships ${JSON.stringify(memberships)}`,
        )
        check((await pendingIds(store, organizationId, ownerId)).length === 0, 'a member’s request is listed')
      }
    },
  ),
]
