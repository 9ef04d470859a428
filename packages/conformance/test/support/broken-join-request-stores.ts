import { randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import {
  type DecideJoinRequestOutcome,
  type JoinRequest,
  type Membership,
  MemoryOrganizationStore,
  OrganizationPermissions,
  OrganizationRoles,
  type RequestToJoinOutcome,
} from '@portcullis/core/organizations'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import type {
  JoinRequestStores,
  JoinRequestStoresFactory,
  JoinRequestStoresFixture,
} from '../../src/organizations/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const roles = OrganizationRoles.defaults
const pause = () => new Promise((resolve) => setTimeout(resolve, 1))

type Flaw = 'check-then-act' | 'no-address-check' | 'no-permission-check' | 'foreign-request' | 'no-limit'

/**
 * A deliberately naive join-request layer for the self-test: organizations, memberships and
 * invitations come from the reference store, but the requests and the memberships approvals make live
 * here, with one rule broken per flaw (and no transaction: `check-then-act` reads, waits, then writes).
 */
function flawedStores(
  inner: MemoryOrganizationStore,
  flaws: readonly Flaw[],
  holderOf: (address: string) => Promise<string | undefined>,
): JoinRequestStores {
  const has = new Set(flaws)
  const requests = new Map<string, JoinRequest>()
  const joined = new Map<string, Membership>()
  const gap = async () => {
    if (has.has('check-then-act')) await pause()
  }
  const memberships = async (accountId: string) => [
    ...(await inner.membershipsOf(accountId)),
    ...[...joined.values()].filter((membership) => membership.accountId === accountId),
  ]
  const isMember = async (organizationId: string, accountId: string) =>
    (await memberships(accountId)).some((membership) => membership.organizationId === organizationId)
  const roleOf = async (organizationId: string, accountId: string) =>
    (await memberships(accountId)).find((membership) => membership.organizationId === organizationId)?.role
  const pendingOf = (organizationId: string) =>
    [...requests.values()].filter((request) => request.organizationId === organizationId)
  const overrides: Partial<JoinRequestStores> = {
    membershipsOf: memberships,
    async requestToJoin({ joinRequest, maxPendingPerOrganization }): Promise<RequestToJoinOutcome> {
      const { organizationId, accountId } = joinRequest
      if ((await inner.getOrganization(organizationId)) === null) return { outcome: 'not-found' }
      if (await isMember(organizationId, accountId)) return { outcome: 'already-member' }
      const existing = pendingOf(organizationId).find((request) => request.accountId === accountId)
      if (existing !== undefined) return { outcome: 'pending', joinRequest: existing }
      if (!has.has('no-address-check') && (await holderOf(joinRequest.address)) !== accountId) {
        return { outcome: 'address-mismatch' }
      }
      if (!has.has('no-limit') && pendingOf(organizationId).length >= maxPendingPerOrganization) {
        return { outcome: 'limit-reached' }
      }
      await gap()
      requests.set(joinRequest.requestId, joinRequest)
      return { outcome: 'requested', joinRequest }
    },
    async listJoinRequests({ organizationId, actorAccountId, limit = 100 }) {
      const role = await roleOf(organizationId, actorAccountId)
      if (role === undefined) return { outcome: 'not-found' as const }
      if (!roles.allows(role, OrganizationPermissions.invite)) return { outcome: 'forbidden' as const }
      const listed = []
      for (const request of pendingOf(organizationId)) {
        if (!(await isMember(organizationId, request.accountId))) listed.push(request)
      }
      listed.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      return { outcome: 'listed' as const, joinRequests: listed.slice(0, limit) }
    },
    async joinRequestsOf(accountId: string) {
      return [...requests.values()].filter((request) => request.accountId === accountId)
    },
    async decideJoinRequest({
      organizationId,
      requestId,
      actorAccountId,
      decision,
      now,
    }): Promise<DecideJoinRequestOutcome> {
      const role = await roleOf(organizationId, actorAccountId)
      if (role === undefined) return { outcome: 'not-found' }
      if (!has.has('no-permission-check') && !roles.allows(role, OrganizationPermissions.invite)) {
        return { outcome: 'forbidden' }
      }
      const request = requests.get(requestId)
      if (request === undefined) return { outcome: 'not-found' }
      if (!has.has('foreign-request') && request.organizationId !== organizationId)
        return { outcome: 'not-found' }
      await gap()
      requests.delete(requestId)
      if (decision === 'decline') return { outcome: 'declined', joinRequest: request }
      if (await isMember(request.organizationId, request.accountId)) return { outcome: 'already-member' }
      const membership: Membership = {
        organizationId: request.organizationId,
        accountId: request.accountId,
        role: 'member',
        joinedAt: now,
        updatedAt: now,
      }
      joined.set(randomUUID(), membership)
      return { outcome: 'approved', joinRequest: request, membership }
    },
    async withdrawJoinRequest({ organizationId, requestId, accountId }) {
      const request = requests.get(requestId)
      if (request?.organizationId !== organizationId || request.accountId !== accountId) {
        return { outcome: 'not-found' as const }
      }
      requests.delete(requestId)
      return { outcome: 'withdrawn' as const }
    },
  }
  // Everything else is the reference store's own, called on it (its private state stays its own).
  return new Proxy(inner, {
    get(target, name, receiver) {
      if (name in overrides) return overrides[name as keyof JoinRequestStores]
      const value = Reflect.get(target, name, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** The memory fixture: the reference store, or the flawed layer over it. */
export function memoryJoinRequestFixture(flaws?: readonly Flaw[]): JoinRequestStoresFactory {
  return (): JoinRequestStoresFixture => {
    const notices = new MemoryRevocationNotices()
    const organizations = new MemoryOrganizationStore({ notices, outbox: new MemoryMailOutbox() })
    const accounts = new MemoryAccountStore({ cascade: [organizations], notices })
    const holderOf = async (address: string) =>
      (await accounts.findAccountByVerifiedEmail(address))?.accountId
    return {
      store: flaws === undefined ? organizations : flawedStores(organizations, flaws, holderOf),
      notices,
      peerNotices: notices,
      async createAccount(options = {}) {
        const accountId = randomUUID()
        const now = new Date()
        await accounts.createAccount({ accountId, username: `join-${accountId}`, passwordHash: HASH, now })
        if (options.address !== undefined) {
          await accounts.addEmailAddress({ accountId, address: options.address, now })
          if (options.verified !== false) {
            await accounts.verifyEmailAddress({ accountId, address: options.address, now })
          }
        }
        return accountId
      },
      deleteAccount: (accountId) => accounts.deleteAccount({ accountId, now: new Date() }),
    }
  }
}

/** Each flawed layer and the cases that must catch it. */
export const brokenJoinRequestStores: readonly {
  readonly name: string
  readonly factory: JoinRequestStoresFactory
  readonly caught: readonly string[]
}[] = [
  {
    name: 'decides and asks by check-then-act',
    factory: memoryJoinRequestFixture(['check-then-act']),
    caught: [
      'join-requests.concurrent-approve-decline',
      'join-requests.concurrent-approvals',
      'join-requests.concurrent-requests',
      'join-requests.concurrent-limit',
    ],
  },
  {
    name: 'takes any address',
    factory: memoryJoinRequestFixture(['no-address-check']),
    caught: ['join-requests.verified-address-only'],
  },
  {
    name: 'lets any member decide',
    factory: memoryJoinRequestFixture(['no-permission-check']),
    caught: ['join-requests.managers-only'],
  },
  {
    name: "decides another organization's request",
    factory: memoryJoinRequestFixture(['foreign-request']),
    caught: ['join-requests.managers-only'],
  },
  {
    name: 'has no pending limit',
    factory: memoryJoinRequestFixture(['no-limit']),
    caught: ['join-requests.pending-limit', 'join-requests.concurrent-limit'],
  },
]
