// The active organization on two app instances (A and B), each with its own pool, listener, session
// cache and membershipResolver, on one database. B has cached the session; A sets its active
// organization; B's next request must read the new choice once the session notice (sent in A's
// transaction) arrives, and B's snapshot must drop it once the membership ends on A.
import type { AuthenticationEvidence } from '@portcullis/core/authentication'
import { resolveAuthorization } from '@portcullis/core/authorization'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  PASSWORD_ACCEPTED,
  type PasswordHasher,
  type SessionSignIn,
} from '@portcullis/core/local-accounts'
import {
  activeOrganizationOf,
  membershipResolver,
  sessionActiveOrganization,
  setActiveOrganization,
} from '@portcullis/core/organizations'
import { afterAll, describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  PostgresOrganizationStore,
  PostgresRevocationNotices,
  PostgresSessionStore,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
const other = db.connect(4)
const listenerA = new PostgresRevocationNotices({ client: db.client })
const listenerB = new PostgresRevocationNotices({ client: other })
await Promise.all([listenerA.start(), listenerB.start()])
afterAll(async () => {
  await Promise.all([listenerA.close(), listenerB.close()])
  await db.close()
})

// Tests only: a hasher without cost.
const hasher: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}
function instance(client: typeof db.client, notices: PostgresRevocationNotices) {
  return new LocalAccounts({
    profile: 'session',
    accounts: new PostgresAccountStore({ client }),
    sessions: new PostgresSessionStore({ client }),
    rateLimits: new MemoryRateLimitStore(),
    hasher,
    registration: 'open',
    publicOrigin: 'https://app.example',
    passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
    revocation: { notices },
  })
}
const localA = instance(db.client, listenerA)
const localB = instance(other, listenerB)
const storeA = new PostgresOrganizationStore({ client: db.client })
const resolverB = membershipResolver({
  memberships: new PostgresOrganizationStore({ client: other }),
  notices: listenerB,
})

/** What B's session mechanism proves for the cookie (its cache first, the store after an eviction). */
async function evidenceOnB(signIn: SessionSignIn): Promise<AuthenticationEvidence> {
  const mechanism = localB.mechanisms[0]
  const cookie = (signIn.setCookie.split(';')[0] ?? '') as string
  const outcome = await mechanism?.authenticate({
    header: (name) => (name.toLowerCase() === 'cookie' ? cookie : undefined),
    cookie: () => undefined,
    method: 'GET',
    path: '/',
  })
  if (outcome?.kind !== 'authenticated') throw new Error(`B refused the session: ${outcome?.kind}`)
  return outcome.evidence
}

async function snapshotOnB(accountId: string, signIn: SessionSignIn) {
  const evidence = await evidenceOnB(signIn)
  const result = await resolveAuthorization(resolverB, {
    principal: { id: accountId, kind: 'user' },
    evidence: [evidence],
  })
  if (result.kind !== 'authorized') throw new Error(result.reason)
  return result.snapshot
}

const heard: { readonly kind: string; readonly accountId?: string }[] = []
listenerB.subscribe({
  revoked: (notice) => {
    heard.push({ kind: notice.kind, ...('accountId' in notice ? { accountId: notice.accountId } : {}) })
  },
  flush: () => {},
})

/** Waits for B to hear a notice of this kind (for this account, when named): a late notice of another
 * account's change must not stand in for it. */
async function heardOnB(kind: string, accountId?: string): Promise<number> {
  const started = Date.now()
  const matches = () =>
    heard.some(
      (notice) => notice.kind === kind && (accountId === undefined || notice.accountId === accountId),
    )
  while (!matches() && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 2))
  heard.splice(0, heard.length)
  return Date.now() - started
}

describe('the active organization on two instances', () => {
  it("B reads A's choice after the session notice, and drops it from the snapshot once the membership ends", async () => {
    const { accountId } = await localA.register({ username: 'ada', password: 'correct horse battery' })
    const signIn = (await localA.establishSignIn({ accountId, transport: 'session' })) as SessionSignIn
    for (const organizationId of ['acme', 'beta']) {
      await storeA.createOrganization({
        organizationId,
        name: organizationId,
        ownerAccountId: accountId,
        now: new Date(),
      })
    }
    await heardOnB('membership', accountId)
    // B caches the session record (no choice yet) and serves it from its cache.
    expect(sessionActiveOrganization([await evidenceOnB(signIn)])).toBeUndefined()
    expect(sessionActiveOrganization([await evidenceOnB(signIn)])).toBeUndefined()

    const set = await setActiveOrganization(
      { memberships: storeA, sessions: localA },
      { accountId, sessionHandle: signIn.handle, organizationId: 'acme' },
    )
    expect(set.outcome).toBe('set')
    expect(await heardOnB('session')).toBeLessThan(5_000)
    const snapshot = await snapshotOnB(accountId, signIn)
    expect(activeOrganizationOf(snapshot)?.organizationId).toBe('acme')
    expect(activeOrganizationOf(snapshot)?.roles).toContain('owner')

    // A cross-account attempt writes nothing: another account's handle with this account's id.
    const { accountId: eve } = await localA.register({ username: 'eve', password: 'correct horse battery' })
    await storeA.createOrganization({
      organizationId: 'evil',
      name: 'Evil',
      ownerAccountId: eve,
      now: new Date(),
    })
    const crossed = await setActiveOrganization(
      { memberships: storeA, sessions: localA },
      { accountId: eve, sessionHandle: signIn.handle, organizationId: 'evil' },
    )
    expect(crossed.outcome).toBe('session-gone')
    expect(sessionActiveOrganization([await evidenceOnB(signIn)])).toBe('acme')
    heard.splice(0, heard.length)

    const deleted = await storeA.deleteOrganization({
      organizationId: 'acme',
      actorAccountId: accountId,
      now: new Date(),
    })
    expect(deleted.outcome).toBe('deleted')
    expect(await heardOnB('membership', accountId)).toBeLessThan(5_000)
    // The creations' own notices may still be on their way: the snapshot B builds must lose acme once the
    // deletion's notice is there, within the wait (never served from the stale cache for good).
    let after = await snapshotOnB(accountId, signIn)
    for (const started = Date.now(); after.inTenant('acme') && Date.now() - started < 5_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      after = await snapshotOnB(accountId, signIn)
    }
    expect(sessionActiveOrganization([await evidenceOnB(signIn)])).toBe('acme')
    expect(after.inTenant('acme')).toBe(false)
    expect(activeOrganizationOf(after)).toBeUndefined()
  })
})
