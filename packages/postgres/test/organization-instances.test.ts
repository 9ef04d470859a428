// Two app instances (A and B), each with its own pool, listener and membershipResolver, on one
// database. B caches a member's tenants; A removes the member or changes its role; B's tenant guard
// must refuse within 100 ms (the notice travels in A's transaction), and B must serve from its cache
// in between (no read per request).
import { randomUUID } from 'node:crypto'
import { requiresTenantRole, resolveAuthorization } from '@portcullis/core/authorization'
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import { type Membership, membershipResolver } from '@portcullis/core/organizations'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresAccountStore, PostgresOrganizationStore, PostgresRevocationNotices } from '../src/index.js'
import { migratedDatabase } from './support/database.js'
import { createAccount } from './support/organizations.js'

const RING = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(9) })
const db = await migratedDatabase()
const other = db.connect(4)
const listenerA = new PostgresRevocationNotices({ client: db.client })
const listenerB = new PostgresRevocationNotices({ client: other })
await Promise.all([listenerA.start(), listenerB.start()])
afterAll(async () => {
  await Promise.all([listenerA.close(), listenerB.close()])
  await db.close()
})

const storeA = new PostgresOrganizationStore({ client: db.client })
const storeB = new PostgresOrganizationStore({ client: other })
let readsB = 0
const resolverB = membershipResolver({
  memberships: {
    membershipsOf: (accountId: string): Promise<readonly Membership[]> => {
      readsB += 1
      return storeB.membershipsOf(accountId)
    },
  },
  notices: listenerB,
})
const accounts = new PostgresAccountStore({ client: db.client })
const guard = requiresTenantRole({ tenantParameter: 'org', roles: ['member', 'admin'] })

async function allowedOnB(accountId: string, org: string): Promise<boolean> {
  const result = await resolveAuthorization(resolverB, {
    principal: { id: accountId, kind: 'user' },
    evidence: [],
  })
  if (result.kind !== 'authorized') throw new Error(result.reason)
  return guard.check({
    principal: { id: accountId, kind: 'user' },
    snapshot: result.snapshot,
    evidence: [],
    params: { org },
  }).granted
}

const heard = new Set<string>()
listenerB.subscribe({
  revoked: (notice) => {
    if (notice.kind === 'membership') heard.add(notice.accountId)
  },
  flush: () => {},
})

async function heardOnB(accountId: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!heard.has(accountId) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 2))
  heard.delete(accountId)
}

async function memberOf(organizationId: string, ownerId: string): Promise<string> {
  const address = `m-${randomUUID()}@example.com`
  const accountId = await createAccount(accounts, { address })
  const invitationId = generateFlowId()
  const code = 'JOIN23456789'
  const { digest, keyVersion } = RING.issueDigest({ id: invitationId, purpose: 'invitation', code })
  const now = new Date()
  await storeA.issueInvitation({
    invitation: {
      invitationId,
      organizationId,
      address,
      role: 'member',
      inviterAccountId: ownerId,
      digest,
      keyVersion,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    },
    now,
  })
  const accepted = await storeA.acceptInvitation({
    invitationId,
    candidates: RING.candidates({ id: invitationId, purpose: 'invitation', code }),
    accountId,
    now,
  })
  if (accepted.outcome !== 'accepted') throw new Error(accepted.outcome)
  return accountId
}

describe('a removed member on another instance', () => {
  it('is refused by the tenant guard of instance B within 100 ms of the removal on A (median of 20; none over 1 s under a loaded run), and served from cache before', async () => {
    const ownerId = await createAccount(accounts)
    const organizationId = `org-${randomUUID()}`
    await storeA.createOrganization({
      organizationId,
      name: 'Acme',
      ownerAccountId: ownerId,
      now: new Date(),
    })
    const delays: number[] = []
    for (let round = 0; round < 20; round += 1) {
      const member = await memberOf(organizationId, ownerId)
      // The join's own notice reaches B first; from then on B answers from its cache.
      await heardOnB(member)
      expect(await allowedOnB(member, organizationId)).toBe(true)
      const reads = readsB
      for (let hit = 0; hit < 5; hit += 1) expect(await allowedOnB(member, organizationId)).toBe(true)
      expect(readsB - reads).toBe(0)
      const change =
        round % 2 === 0
          ? storeA.removeMember({
              organizationId,
              actorAccountId: ownerId,
              accountId: member,
              now: new Date(),
            })
          : storeA.leave({ organizationId, accountId: member, now: new Date() })
      await change
      const committed = performance.now()
      while (await allowedOnB(member, organizationId)) {
        if (performance.now() - committed > 2_000) break
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      delays.push(performance.now() - committed)
    }
    delays.sort((a, b) => a - b)
    const p50 = delays[Math.floor(delays.length * 0.5)] ?? Number.NaN
    const p99 = delays[delays.length - 1] ?? Number.NaN
    console.info(`cross-instance membership eviction: p50 ${p50.toFixed(1)} ms, max ${p99.toFixed(1)} ms`)
    // The budget is 100 ms; a run shares two cores with the whole test run, so the typical round must be
    // within it and no round may be stuck behind a lost notice (the loop above gives up at 2 s).
    expect(p50).toBeLessThan(100)
    expect(p99).toBeLessThan(1_000)
  })

  it('a role change on A is seen by B (demoted admin loses the admin guard)', async () => {
    const ownerId = await createAccount(accounts)
    const organizationId = `org-${randomUUID()}`
    await storeA.createOrganization({
      organizationId,
      name: 'Beta',
      ownerAccountId: ownerId,
      now: new Date(),
    })
    const member = await memberOf(organizationId, ownerId)
    await storeA.setRole({
      organizationId,
      actorAccountId: ownerId,
      accountId: member,
      role: 'admin',
      now: new Date(),
    })
    const admins = requiresTenantRole({ tenantParameter: 'org', roles: ['admin'] })
    const check = async () => {
      const result = await resolveAuthorization(resolverB, {
        principal: { id: member, kind: 'user' },
        evidence: [],
      })
      if (result.kind !== 'authorized') throw new Error(result.reason)
      return admins.check({
        principal: { id: member, kind: 'user' },
        snapshot: result.snapshot,
        evidence: [],
        params: { org: organizationId },
      }).granted
    }
    const deadline = Date.now() + 2_000
    while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2))
    expect(await check()).toBe(true)
    await storeA.setRole({
      organizationId,
      actorAccountId: ownerId,
      accountId: member,
      role: 'member',
      now: new Date(),
    })
    const changed = performance.now()
    while ((await check()) && performance.now() - changed < 2_000)
      await new Promise((resolve) => setTimeout(resolve, 1))
    expect(performance.now() - changed).toBeLessThan(100)
  })
})
