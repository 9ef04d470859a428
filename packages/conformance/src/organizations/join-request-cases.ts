import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { addMember, at, codeOf, newOrganizationId, ownedOrganization, roleOf, T0 } from './fixture.js'
import {
  asker,
  type JoinRequestStoresFixture,
  newJoinRequest,
  pendingIds,
  pendingRequest,
} from './join-request-fixture.js'

type Case = ConformanceCase<JoinRequestStoresFixture>

const owned = ownedOrganization
const member = addMember

export const joinRequestCases: readonly Case[] = [
  conformanceCase(
    'join-requests.approve-makes-member',
    'a verified asker is listed to managers and in its own list; approval writes the membership with the join role and removes the request',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const { accountId, address } = await asker(fixture)
      const joinRequest = newJoinRequest(organizationId, accountId, address)
      const asked = await store.requestToJoin({ joinRequest, maxPendingPerOrganization: 10 })
      check(
        asked.outcome === 'requested' && asked.joinRequest.requestId === joinRequest.requestId,
        `asking answered ${asked.outcome}`,
      )
      const listed = await peer.listJoinRequests({ organizationId, actorAccountId: ownerId })
      check(
        listed.outcome === 'listed' &&
          listed.joinRequests.length === 1 &&
          listed.joinRequests[0]?.accountId === accountId &&
          listed.joinRequests[0]?.address === address,
        `managers see ${JSON.stringify(listed)}`,
      )
      const own = await peer.joinRequestsOf(accountId)
      check(own.length === 1 && own[0]?.organizationId === organizationId, 'not in the asker’s own list')
      check((await roleOf(store, organizationId, accountId)) === undefined, 'asking made a member')
      const decided = await peer.decideJoinRequest({
        organizationId,
        requestId: joinRequest.requestId,
        actorAccountId: ownerId,
        decision: 'approve',
        now: at(1000),
      })
      check(
        decided.outcome === 'approved' &&
          decided.membership.role === 'member' &&
          decided.membership.accountId === accountId,
        `approval answered ${JSON.stringify(decided)}`,
      )
      check((await roleOf(store, organizationId, accountId)) === 'member', 'no membership after approval')
      check((await pendingIds(store, organizationId, ownerId)).length === 0, 'the request is still pending')
      check((await store.joinRequestsOf(accountId)).length === 0, 'the asker still sees a pending request')
      const again = await store.decideJoinRequest({
        organizationId,
        requestId: joinRequest.requestId,
        actorAccountId: ownerId,
        decision: 'approve',
        now: at(2000),
      })
      check(again.outcome === 'not-found', `approving again answered ${again.outcome}`)
    },
  ),
  conformanceCase(
    'join-requests.decline-removes',
    'a decline removes the request and makes no member; deciding it again is not-found',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const request = await pendingRequest(fixture, organizationId)
      const declined = await store.decideJoinRequest({
        organizationId,
        requestId: request.requestId,
        actorAccountId: ownerId,
        decision: 'decline',
        now: T0,
      })
      check(declined.outcome === 'declined', `decline answered ${declined.outcome}`)
      check((await roleOf(store, organizationId, request.accountId)) === undefined, 'a decline made a member')
      check((await pendingIds(store, organizationId, ownerId)).length === 0, 'still pending after decline')
      const approve = await store.decideJoinRequest({
        organizationId,
        requestId: request.requestId,
        actorAccountId: ownerId,
        decision: 'approve',
        now: T0,
      })
      check(approve.outcome === 'not-found', `approving a declined request answered ${approve.outcome}`)
      check((await roleOf(store, organizationId, request.accountId)) === undefined, 'approved after decline')
    },
  ),
  conformanceCase(
    'join-requests.one-pending',
    'a second request of the same account answers the pending one and stores nothing',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const { accountId, address } = await asker(fixture)
      const first = newJoinRequest(organizationId, accountId, address)
      await store.requestToJoin({ joinRequest: first, maxPendingPerOrganization: 10 })
      const second = await store.requestToJoin({
        joinRequest: newJoinRequest(organizationId, accountId, address, at(5000)),
        maxPendingPerOrganization: 10,
      })
      check(
        second.outcome === 'pending' && second.joinRequest.requestId === first.requestId,
        `a second request answered ${JSON.stringify(second)}`,
      )
      const ids = await pendingIds(store, organizationId, ownerId)
      check(ids.length === 1 && ids[0] === first.requestId, `pending: ${ids.join(', ')}`)
    },
  ),
  conformanceCase(
    'join-requests.verified-address-only',
    'an address the account holds unverified, or another account’s address, is address-mismatch and stores nothing',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const unverified = await asker(fixture, { verified: false })
      const refused = await store.requestToJoin({
        joinRequest: newJoinRequest(organizationId, unverified.accountId, unverified.address),
        maxPendingPerOrganization: 10,
      })
      check(refused.outcome === 'address-mismatch', `an unverified address answered ${refused.outcome}`)
      const holder = await asker(fixture)
      const stranger = await asker(fixture)
      const forged = await store.requestToJoin({
        joinRequest: newJoinRequest(organizationId, stranger.accountId, holder.address),
        maxPendingPerOrganization: 10,
      })
      check(forged.outcome === 'address-mismatch', `another account's address answered ${forged.outcome}`)
      check((await pendingIds(store, organizationId, ownerId)).length === 0, 'a refused request was stored')
    },
  ),
  conformanceCase(
    'join-requests.members-and-unknown-organizations',
    'a member asking is already-member; an unknown organization is not-found',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const admin = await member(fixture, organizationId, ownerId, 'admin')
      const memberships = await store.membershipsOf(admin)
      check(memberships.length === 1, 'fixture: the admin is not a member')
      const { address } = await asker(fixture)
      const own = await asker(fixture)
      const asMember = await store.requestToJoin({
        joinRequest: newJoinRequest(organizationId, ownerId, address),
        maxPendingPerOrganization: 10,
      })
      check(asMember.outcome === 'already-member', `the owner asking answered ${asMember.outcome}`)
      const unknown = await store.requestToJoin({
        joinRequest: newJoinRequest(newOrganizationId(), own.accountId, own.address),
        maxPendingPerOrganization: 10,
      })
      check(unknown.outcome === 'not-found', `an unknown organization answered ${unknown.outcome}`)
      check((await store.joinRequestsOf(own.accountId)).length === 0, 'a request to nowhere was stored')
    },
  ),
  conformanceCase(
    'join-requests.pending-limit',
    'an organization holding its limit of pending requests refuses more (limit-reached); a decision frees a place',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const made = []
      for (let index = 0; index < 2; index += 1) {
        const { accountId, address } = await asker(fixture)
        const joinRequest = newJoinRequest(organizationId, accountId, address)
        const answer = await store.requestToJoin({ joinRequest, maxPendingPerOrganization: 2 })
        check(answer.outcome === 'requested', `request ${index} answered ${answer.outcome}`)
        made.push(joinRequest)
      }
      const third = await asker(fixture)
      const over = await store.requestToJoin({
        joinRequest: newJoinRequest(organizationId, third.accountId, third.address),
        maxPendingPerOrganization: 2,
      })
      check(over.outcome === 'limit-reached', `a third request answered ${over.outcome}`)
      const other = await owned(fixture)
      const elsewhere = await store.requestToJoin({
        joinRequest: newJoinRequest(other.organizationId, third.accountId, third.address),
        maxPendingPerOrganization: 2,
      })
      check(elsewhere.outcome === 'requested', `another organization's limit answered ${elsewhere.outcome}`)
      await store.decideJoinRequest({
        organizationId,
        requestId: made[0]?.requestId ?? '',
        actorAccountId: ownerId,
        decision: 'decline',
        now: T0,
      })
      const freed = await store.requestToJoin({
        joinRequest: newJoinRequest(organizationId, third.accountId, third.address),
        maxPendingPerOrganization: 2,
      })
      check(freed.outcome === 'requested', `after a decision answered ${freed.outcome}`)
    },
  ),
  conformanceCase(
    'join-requests.managers-only',
    'a member without the invite permission is forbidden, a non-member and another organization’s request id are not-found; an admin may approve',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const plain = await member(fixture, organizationId, ownerId, 'member')
      const admin = await member(fixture, organizationId, ownerId, 'admin')
      const outsider = await asker(fixture)
      const request = await pendingRequest(fixture, organizationId)
      const other = await owned(fixture)
      const foreign = await pendingRequest(fixture, other.organizationId)
      const decide = (actorAccountId: string, requestId: string, id = organizationId) =>
        store.decideJoinRequest({
          organizationId: id,
          requestId,
          actorAccountId,
          decision: 'approve',
          now: T0,
        })
      const asMember = await decide(plain, request.requestId)
      check(asMember.outcome === 'forbidden', `a plain member answered ${asMember.outcome}`)
      const listedByMember = await store.listJoinRequests({ organizationId, actorAccountId: plain })
      check(
        listedByMember.outcome === 'forbidden',
        `a plain member's list answered ${listedByMember.outcome}`,
      )
      const asOutsider = await decide(outsider.accountId, request.requestId)
      check(asOutsider.outcome === 'not-found', `an outsider answered ${asOutsider.outcome}`)
      const listedByOutsider = await store.listJoinRequests({
        organizationId,
        actorAccountId: outsider.accountId,
      })
      check(
        listedByOutsider.outcome === 'not-found',
        `an outsider's list answered ${listedByOutsider.outcome}`,
      )
      // The owner of this organization names the other organization's request through its own.
      const idor = await decide(ownerId, foreign.requestId)
      check(idor.outcome === 'not-found', `another organization's request answered ${idor.outcome}`)
      check(
        (await roleOf(store, organizationId, foreign.accountId)) === undefined &&
          (await roleOf(store, other.organizationId, foreign.accountId)) === undefined,
        'a foreign request id made a member',
      )
      check(
        (await pendingIds(store, other.organizationId, other.ownerId)).length === 1,
        'foreign request gone',
      )
      const byAdmin = await decide(admin, request.requestId)
      check(
        byAdmin.outcome === 'approved' && byAdmin.membership.role === 'member',
        `an admin answered ${byAdmin.outcome}`,
      )
    },
  ),
  conformanceCase(
    'join-requests.withdraw',
    'the asker withdraws its own request; another account, or another organization in the path, is not-found',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const request = await pendingRequest(fixture, organizationId)
      const other = await owned(fixture)
      const byOwner = await store.withdrawJoinRequest({
        organizationId,
        requestId: request.requestId,
        accountId: ownerId,
      })
      check(byOwner.outcome === 'not-found', `someone else withdrawing answered ${byOwner.outcome}`)
      const wrongOrg = await store.withdrawJoinRequest({
        organizationId: other.organizationId,
        requestId: request.requestId,
        accountId: request.accountId,
      })
      check(wrongOrg.outcome === 'not-found', `another organization answered ${wrongOrg.outcome}`)
      const own = await store.withdrawJoinRequest({
        organizationId,
        requestId: request.requestId,
        accountId: request.accountId,
      })
      check(own.outcome === 'withdrawn', `withdrawing answered ${own.outcome}`)
      check((await pendingIds(store, organizationId, ownerId)).length === 0, 'still pending after withdrawal')
    },
  ),
  conformanceCase(
    'join-requests.newest-first-bounded',
    'managers list pending requests newest first, at most the limit asked',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const made = []
      for (let index = 0; index < 3; index += 1)
        made.push(await pendingRequest(fixture, organizationId, at(index * 1000)))
      const listed = await store.listJoinRequests({ organizationId, actorAccountId: ownerId, limit: 2 })
      check(
        listed.outcome === 'listed' &&
          listed.joinRequests.map((item) => item.requestId).join() ===
            [made[2]?.requestId, made[1]?.requestId].join(),
        `listed ${JSON.stringify(listed)}`,
      )
    },
  ),
  conformanceCase(
    'join-requests.invalid-input',
    'a malformed request id, address, limit or decision is organizations.invalid_input and writes nothing',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const { accountId, address } = await asker(fixture)
      const good = newJoinRequest(organizationId, accountId, address)
      const codes = await Promise.all([
        codeOf(
          store.requestToJoin({ joinRequest: { ...good, requestId: 'short' }, maxPendingPerOrganization: 5 }),
        ),
        codeOf(
          store.requestToJoin({
            joinRequest: { ...good, address: 'Not An Address' },
            maxPendingPerOrganization: 5,
          }),
        ),
        codeOf(store.requestToJoin({ joinRequest: good, maxPendingPerOrganization: 0 })),
        codeOf(
          store.decideJoinRequest({
            organizationId,
            requestId: good.requestId,
            actorAccountId: ownerId,
            decision: 'promote' as 'approve',
            now: T0,
          }),
        ),
        codeOf(store.listJoinRequests({ organizationId, actorAccountId: ownerId, limit: 5000 })),
      ])
      check(
        codes.every((code) => code === 'organizations.invalid_input'),
        `answered ${codes.join(', ')}`,
      )
      check((await pendingIds(store, organizationId, ownerId)).length === 0, 'a malformed request was stored')
    },
  ),
  conformanceCase(
    'join-requests.duplicate-id',
    'a request id already stored, even from another account, is organizations.duplicate and changes nothing',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const first = await pendingRequest(fixture, organizationId)
      const other = await asker(fixture)
      const code = await codeOf(
        store.requestToJoin({
          joinRequest: {
            ...newJoinRequest(organizationId, other.accountId, other.address),
            requestId: first.requestId,
          },
          maxPendingPerOrganization: 10,
        }),
      )
      check(code === 'organizations.duplicate', `answered ${code}`)
      const listed = await store.listJoinRequests({ organizationId, actorAccountId: ownerId })
      check(
        listed.outcome === 'listed' &&
          listed.joinRequests.length === 1 &&
          listed.joinRequests[0]?.accountId === first.accountId,
        `listed ${JSON.stringify(listed)}`,
      )
    },
  ),
  conformanceCase(
    'join-requests.deleted-with-account-and-organization',
    'deleting the asking account, or the organization, removes its requests',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await owned(fixture)
      const request = await pendingRequest(fixture, organizationId)
      if (fixture.deleteAccount !== undefined) {
        const deleted = await fixture.deleteAccount(request.accountId)
        check(deleted.outcome === 'deleted', `deleting the asker answered ${deleted.outcome}`)
        check(
          (await pendingIds(store, organizationId, ownerId)).length === 0,
          'the asker’s request outlived it',
        )
      }
      const other = await owned(fixture)
      const kept = await pendingRequest(fixture, other.organizationId)
      const removed = await store.deleteOrganization({
        organizationId: other.organizationId,
        actorAccountId: other.ownerId,
        now: T0,
      })
      check(removed.outcome === 'deleted', `deleting the organization answered ${removed.outcome}`)
      check((await store.joinRequestsOf(kept.accountId)).length === 0, 'a request outlived its organization')
    },
  ),
]
