import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  accepting,
  addMember,
  at,
  CODE,
  codeOf,
  DAY,
  newAddress,
  newInvitation,
  type OrganizationStoresFixture,
  outboxEntry,
  ownedOrganization,
  RING,
  roleOf,
  T0,
} from './fixture.js'

type Case = ConformanceCase<OrganizationStoresFixture>

export const invitationCases: readonly Case[] = [
  conformanceCase(
    'invitations.accept-once',
    'the invited address, verified, accepts once into the invited role; a replay is not-found',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const address = newAddress()
      const invitee = await fixture.createAccount({ address })
      const invitation = newInvitation(organizationId, ownerId, { role: 'admin', address })
      const issued = await store.issueInvitation({ invitation, now: T0 })
      check(
        issued.outcome === 'issued' &&
          !('digest' in issued.invitation) &&
          issued.invitation.address === address,
        `issue answered ${JSON.stringify(issued)}`,
      )
      const accepted = await peer.acceptInvitation(accepting(invitation, invitee))
      check(
        accepted.outcome === 'accepted' && accepted.membership.role === 'admin',
        `answered ${accepted.outcome}`,
      )
      check((await roleOf(store, organizationId, invitee)) === 'admin', 'no membership after acceptance')
      const replay = await store.acceptInvitation(accepting(invitation, invitee))
      check(replay.outcome === 'not-found', `a replay answered ${replay.outcome}`)
    },
  ),
  conformanceCase(
    'invitations.bound-to-verified-address',
    'another account, or the invited address unverified, is address-mismatch and leaves the invitation pending',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const address = newAddress()
      const stranger = await fixture.createAccount({ address: newAddress() })
      const unverified = await fixture.createAccount({ address, verified: false })
      const invitation = newInvitation(organizationId, ownerId, { address })
      await store.issueInvitation({ invitation, now: T0 })
      const foreign = await store.acceptInvitation(accepting(invitation, stranger))
      check(foreign.outcome === 'address-mismatch', `someone else answered ${foreign.outcome}`)
      const notYet = await store.acceptInvitation(accepting(invitation, unverified))
      check(notYet.outcome === 'address-mismatch', `an unverified holder answered ${notYet.outcome}`)
      check((await store.membershipsOf(stranger)).length === 0, 'the stranger became a member')
      check((await store.membershipsOf(unverified)).length === 0, 'the unverified holder became a member')
      const owner = await store.acceptInvitation(accepting(invitation, ownerId))
      check(owner.outcome === 'address-mismatch', `the inviter accepted: ${owner.outcome}`)
      const holder = await fixture.createAccount({ address })
      const accepted = await store.acceptInvitation(accepting(invitation, holder))
      check(accepted.outcome === 'accepted', `the verified holder answered ${accepted.outcome}`)
    },
  ),
  conformanceCase(
    'invitations.wrong-and-expired-codes',
    'a wrong code or key is not-found and burns nothing; an expired invitation is expired',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const address = newAddress()
      const invitee = await fixture.createAccount({ address })
      const invitation = newInvitation(organizationId, ownerId, { address, expiresAt: at(2 * DAY) })
      await store.issueInvitation({ invitation, now: T0 })
      const wrong = await store.acceptInvitation(accepting(invitation, invitee, { code: 'WRONGCODE123' }))
      check(wrong.outcome === 'not-found', `a wrong code answered ${wrong.outcome}`)
      const otherId = await store.acceptInvitation({
        ...accepting(invitation, invitee),
        invitationId: newInvitation(organizationId, ownerId).invitationId,
      })
      check(otherId.outcome === 'not-found', `an unknown id answered ${otherId.outcome}`)
      const expired = await store.acceptInvitation(accepting(invitation, invitee, { now: at(2 * DAY) }))
      check(expired.outcome === 'expired', `at its expiry answered ${expired.outcome}`)
      const right = await store.acceptInvitation(accepting(invitation, invitee, { now: at(DAY) }))
      check(right.outcome === 'accepted', `the right code after wrong ones answered ${right.outcome}`)
    },
  ),
  conformanceCase(
    'invitations.inviter-rank-and-permission',
    'a member cannot invite; an admin cannot invite an owner; an outsider is not-found; nothing is stored',
    async (fixture, check) => {
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const admin = await addMember(fixture, organizationId, ownerId, 'admin')
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const outsider = await fixture.createAccount()
      const attempts = [
        [member, 'member', 'forbidden'],
        [admin, 'owner', 'rank-exceeded'],
        [outsider, 'member', 'not-found'],
      ] as const
      for (const [inviter, role, expected] of attempts) {
        const address = newAddress()
        const invitation = newInvitation(organizationId, inviter, { role, address })
        const answer = await store.issueInvitation({ invitation, now: T0 })
        check(answer.outcome === expected, `${role} by ${expected} answered ${answer.outcome}`)
        const invitee = await fixture.createAccount({ address })
        const accepted = await store.acceptInvitation(accepting(invitation, invitee))
        check(accepted.outcome === 'not-found', `a refused invitation was accepted: ${accepted.outcome}`)
      }
      const ok = await store.issueInvitation({
        invitation: newInvitation(organizationId, admin, { role: 'admin' }),
        now: T0,
      })
      check(ok.outcome === 'issued', `an admin inviting an admin answered ${ok.outcome}`)
      const code = await codeOf(
        store.issueInvitation({
          invitation: newInvitation(organizationId, ownerId, { role: 'emperor' }),
          now: T0,
        }),
      )
      check(code === 'organizations.invalid_input', `an unknown role answered ${code}`)
    },
  ),
  conformanceCase(
    'invitations.revoke-resend-list',
    'listing shows pending invitations without digests; revoked ones accept nothing; a resend kills the old code',
    async (fixture, check) => {
      const { store, peer = store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const address = newAddress()
      const invitee = await fixture.createAccount({ address })
      const revoked = newInvitation(organizationId, ownerId, { address })
      const resent = newInvitation(organizationId, ownerId, { address })
      await store.issueInvitation({ invitation: revoked, now: T0 })
      await store.issueInvitation({ invitation: resent, now: T0 })
      const listed = await peer.listInvitations({ organizationId, actorAccountId: ownerId, now: T0 })
      check(
        listed.outcome === 'listed' &&
          listed.invitations.length === 2 &&
          listed.invitations.every((item) => !('digest' in item)),
        `listed ${JSON.stringify(listed)}`,
      )
      const hidden = await store.listInvitations({ organizationId, actorAccountId: member, now: T0 })
      check(hidden.outcome === 'forbidden', `a member listed invitations: ${hidden.outcome}`)
      const byMember = await store.revokeInvitation({
        organizationId,
        invitationId: revoked.invitationId,
        actorAccountId: member,
        now: T0,
      })
      check(byMember.outcome === 'forbidden', `a member revoked: ${byMember.outcome}`)
      const done = await peer.revokeInvitation({
        organizationId,
        invitationId: revoked.invitationId,
        actorAccountId: ownerId,
        now: T0,
      })
      check(done.outcome === 'revoked', `revoke answered ${done.outcome}`)
      const afterRevoke = await store.acceptInvitation(accepting(revoked, invitee))
      check(afterRevoke.outcome === 'not-found', `a revoked invitation answered ${afterRevoke.outcome}`)
      const code = 'NEWCODE23456'
      const { digest, keyVersion } = RING.issueDigest({
        id: resent.invitationId,
        purpose: 'invitation',
        code,
      })
      const again = await store.resendInvitation({
        organizationId,
        invitationId: resent.invitationId,
        actorAccountId: ownerId,
        digest,
        keyVersion,
        expiresAt: at(9 * DAY),
        now: at(2 * DAY),
      })
      check(
        again.outcome === 'resent' && again.invitation.expiresAt.getTime() === at(9 * DAY).getTime(),
        'resend failed',
      )
      const old = await store.acceptInvitation(accepting(resent, invitee, { code: CODE }))
      check(old.outcome === 'not-found', `the old code still answered ${old.outcome}`)
      const fresh = await store.acceptInvitation(accepting(resent, invitee, { code, now: at(8 * DAY) }))
      check(fresh.outcome === 'accepted', `the new code answered ${fresh.outcome}`)
    },
  ),
  conformanceCase(
    'invitations.foreign-organization',
    'an invitation is revoked, resent and listed only through its own organization',
    async (fixture, check) => {
      const { store } = fixture
      const mine = await ownedOrganization(fixture)
      const theirs = await ownedOrganization(fixture)
      const invitation = newInvitation(theirs.organizationId, theirs.ownerId)
      await store.issueInvitation({ invitation, now: T0 })
      const revoke = await store.revokeInvitation({
        organizationId: mine.organizationId,
        invitationId: invitation.invitationId,
        actorAccountId: mine.ownerId,
        now: T0,
      })
      check(revoke.outcome === 'not-found', `revoked through another organization: ${revoke.outcome}`)
      const { digest, keyVersion } = RING.issueDigest({
        id: invitation.invitationId,
        purpose: 'invitation',
        code: 'STOLEN234567',
      })
      const resend = await store.resendInvitation({
        organizationId: mine.organizationId,
        invitationId: invitation.invitationId,
        actorAccountId: mine.ownerId,
        digest,
        keyVersion,
        expiresAt: at(3 * DAY),
        now: T0,
      })
      check(resend.outcome === 'not-found', `resent through another organization: ${resend.outcome}`)
      const list = await store.listInvitations({
        organizationId: theirs.organizationId,
        actorAccountId: mine.ownerId,
        now: T0,
      })
      check(list.outcome === 'not-found', `listed by an outsider: ${list.outcome}`)
      const pending = await store.listInvitations({
        organizationId: theirs.organizationId,
        actorAccountId: theirs.ownerId,
        now: T0,
      })
      check(pending.outcome === 'listed' && pending.invitations.length === 1, 'the invitation changed')
    },
  ),
  conformanceCase(
    'invitations.outbox-with-change',
    'issue and resend write their outbox entries with the change, and a refused issue writes none',
    async (fixture, check) => {
      if (fixture.storedOutboxIds === undefined) return
      const { store } = fixture
      const { organizationId, ownerId } = await ownedOrganization(fixture)
      const member = await addMember(fixture, organizationId, ownerId, 'member')
      const written = outboxEntry()
      const invitation = newInvitation(organizationId, ownerId)
      await store.issueInvitation({ invitation, now: T0, outbox: [written] })
      const refused = outboxEntry()
      await store.issueInvitation({
        invitation: newInvitation(organizationId, member),
        now: T0,
        outbox: [refused],
      })
      const resent = outboxEntry()
      const { digest, keyVersion } = RING.issueDigest({
        id: invitation.invitationId,
        purpose: 'invitation',
        code: 'AGAIN2345678',
      })
      await store.resendInvitation({
        organizationId,
        invitationId: invitation.invitationId,
        actorAccountId: ownerId,
        digest,
        keyVersion,
        expiresAt: at(3 * DAY),
        now: T0,
        outbox: [resent],
      })
      const stored = await fixture.storedOutboxIds([written.id, refused.id, resent.id])
      check(stored.includes(written.id) && stored.includes(resent.id), 'an entry of a change is missing')
      check(!stored.includes(refused.id), 'a refused invitation wrote its mail')
    },
  ),
]
