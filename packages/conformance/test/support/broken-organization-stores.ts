import { randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { codeDigestMatches } from '@portcullis/core/codes'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import {
  type AcceptInvitationOutcome,
  type AcceptInvitationRequest,
  type LeaveOrganizationOutcome,
  type LeaveOrganizationRequest,
  MemoryOrganizationStore,
  type NewInvitation,
  OrganizationRoles,
  type OrganizationStores,
  type RemoveMemberOutcome,
  type RemoveMemberRequest,
  type SetRoleOutcome,
  type SetRoleRequest,
} from '@portcullis/core/organizations'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import type { OrganizationStoresFactory, OrganizationStoresFixture } from '../../src/organizations/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const roles = OrganizationRoles.defaults
const pause = () => new Promise((resolve) => setTimeout(resolve, 1))

type Flaw = 'no-last-owner' | 'check-then-act' | 'no-address-check' | 'replayable' | 'no-rank-check'

/**
 * A deliberately naive store for the self-test: organizations and invitations come from the reference
 * store, but the membership changes and acceptance it overrides keep their own copy of the rules, with
 * one rule broken per flaw. The overrides act on the reference store only through its public operations.
 */
class FlawedStores {
  readonly #inner: MemoryOrganizationStore
  readonly #flaws: ReadonlySet<Flaw>
  readonly #holderOf: (address: string) => Promise<string | undefined>
  /** Memberships as this flawed layer sees them (it owns them for the operations it overrides). */
  readonly roles = new Map<string, Map<string, string>>()
  readonly invitations = new Map<string, NewInvitation & { used: boolean }>()

  constructor(
    inner: MemoryOrganizationStore,
    flaws: readonly Flaw[],
    holderOf: (address: string) => Promise<string | undefined>,
  ) {
    this.#inner = inner
    this.#flaws = new Set(flaws)
    this.#holderOf = holderOf
  }

  has(flaw: Flaw): boolean {
    return this.#flaws.has(flaw)
  }

  view(): OrganizationStores {
    const inner = this.#inner
    const members = (organizationId: string) => {
      let map = this.roles.get(organizationId)
      if (map === undefined) {
        map = new Map()
        this.roles.set(organizationId, map)
      }
      return map
    }
    const owners = (organizationId: string) =>
      [...members(organizationId).values()].filter((role) => role === 'owner').length
    const gap = async () => {
      if (this.has('check-then-act')) await pause()
    }
    const store: OrganizationStores = {
      createOrganization: async (request) => {
        const created = await inner.createOrganization(request)
        if (created.outcome === 'created')
          members(request.organizationId).set(request.ownerAccountId, 'owner')
        return created
      },
      getOrganization: (id) => inner.getOrganization(id),
      organizationsOf: async (accountId) => {
        const list = await inner.organizationsOf(accountId)
        return list.flatMap((item) => {
          const role = this.roles.get(item.organizationId)?.get(accountId)
          return role === undefined ? [] : [{ ...item, role }]
        })
      },
      renameOrganization: (request) => inner.renameOrganization(request),
      deleteOrganization: async (request) => {
        const deleted = await inner.deleteOrganization(request)
        if (deleted.outcome === 'deleted') this.roles.delete(request.organizationId)
        return deleted
      },
      membershipsOf: async (accountId) =>
        [...this.roles].flatMap(([organizationId, map]) => {
          const role = map.get(accountId)
          return role === undefined
            ? []
            : [{ organizationId, accountId, role, joinedAt: new Date(0), updatedAt: new Date(0) }]
        }),
      listMembers: async (request) => {
        const map = this.roles.get(request.organizationId)
        if (map?.has(request.actorAccountId) !== true) return { outcome: 'not-found' }
        const list = [...map]
          .filter(([id]) => request.after === undefined || id > request.after)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .slice(0, request.limit ?? 100)
          .map(([accountId, role]) => ({
            organizationId: request.organizationId,
            accountId,
            role,
            joinedAt: new Date(0),
            updatedAt: new Date(0),
          }))
        return { outcome: 'listed', members: list }
      },
      setRole: async (request: SetRoleRequest): Promise<SetRoleOutcome> => {
        if (!roles.has(request.role))
          throw Object.assign(new Error('role'), { code: 'organizations.invalid_input' })
        const map = members(request.organizationId)
        const actor = map.get(request.actorAccountId)
        const current = map.get(request.accountId)
        if (actor === undefined || current === undefined) return { outcome: 'not-found' }
        if (!roles.allows(actor, 'organization.members.manage')) return { outcome: 'forbidden' }
        if (
          !this.has('no-rank-check') &&
          (!roles.atOrBelow(actor, request.role) || !roles.atOrBelow(actor, current))
        ) {
          return { outcome: 'rank-exceeded' }
        }
        if (
          !this.has('no-last-owner') &&
          current === 'owner' &&
          request.role !== 'owner' &&
          owners(request.organizationId) <= 1
        ) {
          return { outcome: 'last-owner' }
        }
        await gap()
        map.set(request.accountId, request.role)
        return {
          outcome: 'changed',
          membership: {
            organizationId: request.organizationId,
            accountId: request.accountId,
            role: request.role,
            joinedAt: new Date(0),
            updatedAt: new Date(0),
          },
        }
      },
      removeMember: async (request: RemoveMemberRequest): Promise<RemoveMemberOutcome> => {
        if (request.actorAccountId === request.accountId) {
          const left = await store.leave(request)
          return left.outcome === 'left' ? { outcome: 'removed' } : left
        }
        const map = members(request.organizationId)
        const actor = map.get(request.actorAccountId)
        const current = map.get(request.accountId)
        if (actor === undefined || current === undefined) return { outcome: 'not-found' }
        if (!roles.allows(actor, 'organization.members.manage')) return { outcome: 'forbidden' }
        if (!this.has('no-rank-check') && !roles.atOrBelow(actor, current))
          return { outcome: 'rank-exceeded' }
        if (!this.has('no-last-owner') && current === 'owner' && owners(request.organizationId) <= 1)
          return { outcome: 'last-owner' }
        await gap()
        map.delete(request.accountId)
        return { outcome: 'removed' }
      },
      leave: async (request: LeaveOrganizationRequest): Promise<LeaveOrganizationOutcome> => {
        const map = members(request.organizationId)
        const current = map.get(request.accountId)
        if (current === undefined) return { outcome: 'not-found' }
        if (!this.has('no-last-owner') && current === 'owner' && owners(request.organizationId) <= 1)
          return { outcome: 'last-owner' }
        await gap()
        map.delete(request.accountId)
        return { outcome: 'left' }
      },
      issueInvitation: async (request) => {
        const map = members(request.invitation.organizationId)
        const actor = map.get(request.invitation.inviterAccountId)
        if (!roles.has(request.invitation.role))
          throw Object.assign(new Error('role'), { code: 'organizations.invalid_input' })
        if (actor === undefined) return { outcome: 'not-found' }
        if (!roles.allows(actor, 'organization.invitations.manage')) return { outcome: 'forbidden' }
        if (!this.has('no-rank-check') && !roles.atOrBelow(actor, request.invitation.role))
          return { outcome: 'rank-exceeded' }
        this.invitations.set(request.invitation.invitationId, { ...request.invitation, used: false })
        const { digest: _digest, ...listed } = request.invitation
        return { outcome: 'issued', invitation: listed }
      },
      acceptInvitation: async (request: AcceptInvitationRequest): Promise<AcceptInvitationOutcome> => {
        const invitation = this.invitations.get(request.invitationId)
        if (invitation === undefined || !codeDigestMatches(invitation, request.candidates))
          return { outcome: 'not-found' }
        if (invitation.used && !this.has('replayable')) return { outcome: 'not-found' }
        if (invitation.expiresAt <= request.now) return { outcome: 'expired' }
        if (
          !this.has('no-address-check') &&
          (await this.#holderOf(invitation.address)) !== request.accountId
        ) {
          return { outcome: 'address-mismatch' }
        }
        await gap()
        invitation.used = true
        members(invitation.organizationId).set(request.accountId, invitation.role)
        return {
          outcome: 'accepted',
          membership: {
            organizationId: invitation.organizationId,
            accountId: request.accountId,
            role: invitation.role,
            joinedAt: request.now,
            updatedAt: request.now,
          },
        }
      },
      revokeInvitation: async (request) => {
        const invitation = this.invitations.get(request.invitationId)
        if (
          invitation === undefined ||
          invitation.used ||
          invitation.organizationId !== request.organizationId
        )
          return { outcome: 'not-found' }
        const actor = members(request.organizationId).get(request.actorAccountId)
        if (actor === undefined) return { outcome: 'not-found' }
        if (!roles.allows(actor, 'organization.invitations.manage')) return { outcome: 'forbidden' }
        await gap()
        this.invitations.delete(request.invitationId)
        return { outcome: 'revoked' }
      },
      resendInvitation: async (request) => {
        const invitation = this.invitations.get(request.invitationId)
        const actor = members(request.organizationId).get(request.actorAccountId)
        if (
          invitation === undefined ||
          invitation.used ||
          actor === undefined ||
          invitation.organizationId !== request.organizationId
        ) {
          return { outcome: 'not-found' }
        }
        if (!roles.allows(actor, 'organization.invitations.manage')) return { outcome: 'forbidden' }
        const next = {
          ...invitation,
          digest: request.digest,
          keyVersion: request.keyVersion,
          expiresAt: request.expiresAt,
        }
        this.invitations.set(request.invitationId, next)
        const { digest: _digest, used: _used, ...listed } = next
        return { outcome: 'resent', invitation: listed }
      },
      listInvitations: async (request) => {
        const actor = members(request.organizationId).get(request.actorAccountId)
        if (actor === undefined) return { outcome: 'not-found' }
        if (!roles.allows(actor, 'organization.invitations.manage')) return { outcome: 'forbidden' }
        const invitations = [...this.invitations.values()]
          .filter(
            (item) =>
              item.organizationId === request.organizationId && !item.used && item.expiresAt > request.now,
          )
          .map(({ digest: _digest, used: _used, ...listed }) => listed)
        return { outcome: 'listed', invitations }
      },
    }
    return store
  }
}

/** The reference memory stores (organizations cascaded from accounts, notices, an outbox), or a flawed layer over them. */
export function memoryOrganizationFixture(flaws?: readonly Flaw[]): OrganizationStoresFactory {
  return (): OrganizationStoresFixture => {
    const notices = new MemoryRevocationNotices()
    const outbox = new MemoryMailOutbox()
    const organizations = new MemoryOrganizationStore({ notices, outbox })
    const accounts = new MemoryAccountStore({ cascade: [organizations], notices })
    const holderOf = async (address: string) =>
      (await accounts.findAccountByVerifiedEmail(address))?.accountId
    const store =
      flaws === undefined ? organizations : new FlawedStores(organizations, flaws, holderOf).view()
    return {
      store,
      ...(flaws === undefined ? { notices, peerNotices: notices } : {}),
      async createAccount(options = {}) {
        const accountId = randomUUID()
        const created = await accounts.createAccount({
          accountId,
          username: `orgs-${accountId}`,
          passwordHash: HASH,
          now: new Date(),
        })
        if (created.outcome !== 'created') throw new Error(`account fixture: ${created.outcome}`)
        if (options.address !== undefined) {
          const now = new Date()
          await accounts.addEmailAddress({ accountId, address: options.address, now })
          if (options.verified !== false) {
            const verified = await accounts.verifyEmailAddress({ accountId, address: options.address, now })
            if (verified.outcome !== 'verified') throw new Error(`address fixture: ${verified.outcome}`)
          }
        }
        return accountId
      },
      ...(flaws === undefined
        ? {
            deleteAccount: (accountId: string) => accounts.deleteAccount({ accountId, now: new Date() }),
            async storedOutboxIds(ids: readonly string[]) {
              const pending = new Set(outbox.pending().map((entry) => entry.id))
              return ids.filter((id) => pending.has(id))
            },
          }
        : {}),
    }
  }
}

export interface BrokenOrganizationStore {
  readonly name: string
  readonly factory: OrganizationStoresFactory
  readonly caught: readonly string[]
}

export const brokenOrganizationStores: readonly BrokenOrganizationStore[] = [
  {
    name: 'the last owner may go',
    factory: memoryOrganizationFixture(['no-last-owner']),
    caught: ['memberships.last-owner', 'memberships.concurrent-owners-leave'],
  },
  {
    name: 'checks, then awaits, then writes',
    factory: memoryOrganizationFixture(['check-then-act']),
    caught: [
      'memberships.concurrent-owner-demotions',
      'invitations.concurrent-accept',
      'invitations.concurrent-accept-and-revoke',
    ],
  },
  {
    name: 'any signed-in account accepts',
    factory: memoryOrganizationFixture(['no-address-check']),
    caught: ['invitations.bound-to-verified-address'],
  },
  {
    name: 'an accepted invitation accepts again',
    factory: memoryOrganizationFixture(['replayable']),
    caught: ['invitations.accept-once'],
  },
  {
    name: 'ranks are not compared',
    factory: memoryOrganizationFixture(['no-rank-check']),
    caught: ['memberships.grant-at-or-below-own', 'invitations.inviter-rank-and-permission'],
  },
]
