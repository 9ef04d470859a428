import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import { requiresTenantRole } from '../authorization/guards.js'
import { resolveAuthorization } from '../authorization/resolver.js'
import type { AuthorizationSnapshot } from '../authorization/snapshot.js'
import { MemoryRevocationNotices } from '../revocation/memory-revocation-notices.js'
import { MemoryOrganizationStore } from './memory-store.js'
import type { Membership } from './records.js'
import { membershipResolver } from './resolver.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const now = new Date('2031-01-01T00:00:00Z')

async function world() {
  const notices = new MemoryRevocationNotices()
  const store = new MemoryOrganizationStore({ notices })
  const accounts = new MemoryAccountStore({ cascade: [store], notices })
  const account = async () => {
    const accountId = randomUUID()
    await accounts.createAccount({ accountId, username: `u-${accountId}`, passwordHash: HASH, now })
    return accountId
  }
  let reads = 0
  const counted = {
    membershipsOf: (accountId: string): Promise<readonly Membership[]> => {
      reads += 1
      return store.membershipsOf(accountId)
    },
  }
  return { notices, store, accounts, account, counted, reads: () => reads }
}

const user = (id: string) => ({ principal: { id, kind: 'user' as const }, evidence: [] })

async function snapshotOf(
  resolver: ReturnType<typeof membershipResolver>,
  id: string,
): Promise<AuthorizationSnapshot> {
  const result = await resolveAuthorization(resolver, user(id))
  if (result.kind !== 'authorized') throw new Error(result.reason)
  return result.snapshot
}

describe('membershipResolver', () => {
  it('fills tenants with the role and its permissions, and requiresTenantRole reads them unchanged', async () => {
    const { store, account, notices } = await world()
    const owner = await account()
    await store.createOrganization({ organizationId: 'acme', name: 'Acme', ownerAccountId: owner, now })
    await store.createOrganization({
      organizationId: 'other',
      name: 'Other',
      ownerAccountId: await account(),
      now,
    })
    const resolver = membershipResolver({ memberships: store, notices })
    const snapshot = await snapshotOf(resolver, owner)
    expect(snapshot.tenantRoles('acme')).toEqual(
      expect.arrayContaining(['owner', 'organization.members.manage']),
    )
    expect(snapshot.inTenant('other')).toBe(false)
    const guard = requiresTenantRole({ tenantParameter: 'org', roles: ['owner'] })
    const context = (org: string | readonly string[]) => ({
      principal: user(owner).principal,
      snapshot,
      evidence: [],
      params: { org },
    })
    expect(guard.check(context('acme')).granted).toBe(true)
    // A forged path names another organization, or tries to smuggle two: refused.
    expect(guard.check(context('other')).granted).toBe(false)
    expect(guard.check(context(['acme', 'other'])).granted).toBe(false)
    resolver.close()
  })

  it('reads once, then serves from its cache until a membership notice evicts the account', async () => {
    const { store, account, notices, counted, reads } = await world()
    const owner = await account()
    await store.createOrganization({ organizationId: 'acme', name: 'Acme', ownerAccountId: owner, now })
    const member = await account()
    const resolver = membershipResolver({ memberships: counted, notices })
    expect((await snapshotOf(resolver, member)).inTenant('acme')).toBe(false)
    await snapshotOf(resolver, owner)
    await snapshotOf(resolver, owner)
    expect(reads()).toBe(2)
    // Joining (creating) publishes a membership notice: the next request reads again.
    const created = await store.createOrganization({
      organizationId: 'beta',
      name: 'Beta',
      ownerAccountId: owner,
      now,
    })
    expect(created.outcome).toBe('created')
    const fresh = await snapshotOf(resolver, owner)
    expect(fresh.inTenant('beta')).toBe(true)
    expect(reads()).toBe(3)
    await store.deleteOrganization({ organizationId: 'beta', actorAccountId: owner, now })
    expect((await snapshotOf(resolver, owner)).inTenant('beta')).toBe(false)
    expect(reads()).toBe(4)
    resolver.close()
  })

  it('without notices reads on every request (strict)', async () => {
    const { store, account, counted, reads } = await world()
    const owner = await account()
    await store.createOrganization({ organizationId: 'acme', name: 'Acme', ownerAccountId: owner, now })
    const resolver = membershipResolver({ memberships: counted })
    await snapshotOf(resolver, owner)
    await snapshotOf(resolver, owner)
    expect(reads()).toBe(2)
  })

  it('keeps the application resolver: its null is 401, its grants stay, a membership wins a tenant it names', async () => {
    const { store, account, notices } = await world()
    const owner = await account()
    await store.createOrganization({ organizationId: 'acme', name: 'Acme', ownerAccountId: owner, now })
    const resolver = membershipResolver({
      memberships: store,
      notices,
      resolver: ({ principal }) =>
        principal.id === 'ghost'
          ? null
          : { roles: ['staff'], tenants: { acme: ['viewer'], legacy: ['reader'] } },
    })
    const snapshot = await snapshotOf(resolver, owner)
    expect(snapshot.hasRole('staff')).toBe(true)
    expect(snapshot.tenantRoles('legacy')).toEqual(['reader'])
    expect(snapshot.hasTenantRole('acme', ['viewer'])).toBe(false)
    expect(snapshot.hasTenantRole('acme', ['owner'])).toBe(true)
    const rejected = await resolveAuthorization(resolver, user('ghost'))
    expect(rejected.kind).toBe('rejected')
  })

  it('reads nothing for a service principal, and a failing store is unavailable (503), never an empty grant', async () => {
    let reads = 0
    const resolver = membershipResolver({
      memberships: {
        membershipsOf: async () => {
          reads += 1
          throw new Error('connection refused')
        },
      },
    })
    const service = await resolveAuthorization(resolver, {
      principal: { id: 'ci', kind: 'service' },
      evidence: [],
    })
    expect(service.kind).toBe('authorized')
    expect(reads).toBe(0)
    const failed = await resolveAuthorization(resolver, user('someone'))
    expect(failed).toEqual({ kind: 'unavailable', reason: 'authorization.resolver_failed' })
  })

  it('never caches a read that a notice overtook', async () => {
    const { store, account, notices } = await world()
    const owner = await account()
    await store.createOrganization({ organizationId: 'acme', name: 'Acme', ownerAccountId: owner, now })
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let reads = 0
    const resolver = membershipResolver({
      memberships: {
        membershipsOf: async (accountId) => {
          reads += 1
          const answer = await store.membershipsOf(accountId)
          if (reads === 1) await gate
          return answer
        },
      },
      notices,
    })
    const first = snapshotOf(resolver, owner)
    await new Promise((resolve) => setTimeout(resolve, 5))
    await notices.publish({ kind: 'membership', accountId: owner })
    release()
    await first
    await snapshotOf(resolver, owner)
    expect(reads).toBe(2)
  })

  it('evict forgets one account at once, before any notice, and leaves the others cached', async () => {
    const { store, account, counted, reads } = await world()
    const owner = await account()
    const other = await account()
    // Notices that never arrive (as when the change's notice is still on its way back).
    const silent = { trusted: () => true, subscribe: () => () => {}, publish: async () => {} }
    const resolver = membershipResolver({ memberships: counted, notices: silent })
    expect((await snapshotOf(resolver, owner)).inTenant('acme')).toBe(false)
    await snapshotOf(resolver, other)
    await store.createOrganization({ organizationId: 'acme', name: 'Acme', ownerAccountId: owner, now })
    // Without the notice, the cache still says no.
    expect((await snapshotOf(resolver, owner)).inTenant('acme')).toBe(false)
    expect(reads()).toBe(2)
    resolver.evict(owner)
    expect((await snapshotOf(resolver, owner)).inTenant('acme')).toBe(true)
    expect(reads()).toBe(3)
    // The other account's entry stays cached.
    await snapshotOf(resolver, other)
    expect(reads()).toBe(3)
    resolver.close()
  })
})
