import { describe, expect, it } from 'vitest'
import { cookiePair, localFixture, requestSource } from '../../test/support/local-accounts.js'
import type { AuthenticationEvidence } from '../authentication/principal.js'
import { resolveAuthorization } from '../authorization/resolver.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import { MemorySessionStore } from '../local-accounts/sessions/memory-session-store.js'
import { SESSION_HANDLE_ATTRIBUTE } from '../local-accounts/sessions/session-mechanism.js'
import type { SessionSignIn } from '../local-accounts/sign-in.js'
import { MemoryRevocationNotices } from '../revocation/memory-revocation-notices.js'
import {
  ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE,
  activeOrganizationOf,
  sessionActiveOrganization,
  setActiveOrganization,
} from './active-organization.js'
import { MemoryOrganizationStore } from './memory-store.js'
import { membershipResolver } from './resolver.js'

const now = new Date('2031-01-01T00:00:00Z')
const PASSWORD = 'correct horse battery staple'

async function world() {
  const notices = new MemoryRevocationNotices()
  const organizations = new MemoryOrganizationStore({ notices })
  const fixture = await localFixture({
    sessions: new MemorySessionStore({ notices }),
    revocation: { notices },
  })
  const { local } = fixture
  const person = async (username: string) => {
    const { accountId } = await local.register({ username, password: PASSWORD })
    const signIn = (await local.establishSignIn({ accountId, transport: 'session' })) as SessionSignIn
    return { accountId, signIn, handle: signIn.handle }
  }
  /** An organization `owner` creates (its first owner). */
  const organization = (organizationId: string, owner: { accountId: string }) =>
    organizations.createOrganization({
      organizationId,
      name: organizationId,
      ownerAccountId: owner.accountId,
      now,
    })
  /** `who` chooses `organizationId` (or none) for the session of `sessionHandle`, their own by default. */
  const choose = (
    who: { accountId: string; handle: string },
    organizationId: string | null,
    sessionHandle = who.handle,
  ) =>
    setActiveOrganization(
      { memberships: organizations, sessions: local },
      { accountId: who.accountId, sessionHandle, organizationId },
    )
  const resolver = membershipResolver({ memberships: organizations, notices })
  return { notices, organizations, local, person, resolver, organization, choose }
}

/** What the session mechanism proves for this sign-in on the next request. */
async function evidenceOf(local: LocalAccounts, signIn: SessionSignIn): Promise<AuthenticationEvidence[]> {
  const mechanism = local.mechanisms.find((candidate) => candidate.name === local.sessionMechanismName)
  const outcome = await mechanism?.authenticate(requestSource({ cookie: cookiePair(signIn.setCookie) }))
  if (outcome?.kind !== 'authenticated') throw new Error(`not authenticated: ${outcome?.kind}`)
  return [outcome.evidence]
}

async function snapshotFor(
  parts: Awaited<ReturnType<typeof world>>,
  who: { accountId: string; signIn: SessionSignIn },
) {
  const evidence = await evidenceOf(parts.local, who.signIn)
  const result = await resolveAuthorization(parts.resolver, {
    principal: { id: who.accountId, kind: 'user' },
    evidence,
  })
  if (result.kind !== 'authorized') throw new Error(result.reason)
  return result.snapshot
}

describe('the active organization', () => {
  it('is set for a member, read on the next request with the stored role, and cleared with null', async () => {
    const parts = await world()
    const ada = await parts.person('ada')
    await parts.organization('acme', ada)
    // The session mechanism caches the record: the change must be seen at once on this instance.
    expect(activeOrganizationOf(await snapshotFor(parts, ada))).toBeUndefined()
    const outcome = await parts.choose(ada, 'acme')
    expect(outcome).toMatchObject({ outcome: 'set', membership: { organizationId: 'acme', role: 'owner' } })
    const snapshot = await snapshotFor(parts, ada)
    expect(activeOrganizationOf(snapshot)).toEqual({
      organizationId: 'acme',
      roles: expect.arrayContaining(['owner']),
    })
    const cleared = await parts.choose(ada, null)
    expect(cleared).toEqual({ outcome: 'cleared' })
    expect(activeOrganizationOf(await snapshotFor(parts, ada))).toBeUndefined()
  })

  it('refuses an organization the account does not belong to, existing or not, and writes nothing', async () => {
    const parts = await world()
    const ada = await parts.person('ada')
    const bob = await parts.person('bob')
    await parts.organization('globex', bob)
    for (const organizationId of ['globex', 'nowhere']) {
      const refused = await parts.choose(ada, organizationId).catch((error: unknown) => error)
      expect(isPortcullisError(refused) && refused.code).toBe('organizations.not_found')
    }
    const evidence = await evidenceOf(parts.local, ada.signIn)
    expect(sessionActiveOrganization(evidence)).toBeUndefined()
    // Another account's session handle with this account's id is nobody's session.
    await parts.organization('acme', ada)
    const crossed = await parts.choose(ada, 'acme', bob.handle)
    expect(crossed).toEqual({ outcome: 'session-gone' })
    expect(sessionActiveOrganization(await evidenceOf(parts.local, bob.signIn))).toBeUndefined()
    const malformed = await parts.choose(ada, '../acme').catch((error: unknown) => error)
    expect(isPortcullisError(malformed) && malformed.code).toBe('organizations.invalid_input')
  })

  it('vanishes from the snapshot once the membership ends (its notice), though the session still names it', async () => {
    const parts = await world()
    const ada = await parts.person('ada')
    for (const organizationId of ['acme', 'beta']) await parts.organization(organizationId, ada)
    await parts.choose(ada, 'acme')
    expect(activeOrganizationOf(await snapshotFor(parts, ada))?.organizationId).toBe('acme')
    const deleted = await parts.organizations.deleteOrganization({
      organizationId: 'acme',
      actorAccountId: ada.accountId,
      now,
    })
    expect(deleted.outcome).toBe('deleted')
    const after = await snapshotFor(parts, ada)
    expect(sessionActiveOrganization(await evidenceOf(parts.local, ada.signIn))).toBe('acme')
    expect(after.inTenant('acme')).toBe(false)
    expect(after.inTenant('beta')).toBe(true)
    expect(activeOrganizationOf(after)).toBeUndefined()
    expect(after.attributes[ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE]).toBeUndefined()
  })

  it('survives a rotation of the session id, and a revoked session cannot be given one', async () => {
    const parts = await world()
    const ada = await parts.person('ada')
    await parts.organization('acme', ada)
    await parts.choose(ada, 'acme')
    const rotated = await parts.local.rotateSession(ada.signIn.sessionId)
    const evidence = await evidenceOf(parts.local, rotated)
    expect(sessionActiveOrganization(evidence)).toBe('acme')
    expect(await parts.local.revokeSession(ada.accountId, rotated.handle)).toBe(true)
    const gone = await parts.choose(ada, 'acme', rotated.handle)
    expect(gone).toEqual({ outcome: 'session-gone' })
  })

  it("ignores an application resolver's own attribute and any evidence but a session's", async () => {
    const parts = await world()
    const ada = await parts.person('ada')
    await parts.organization('acme', ada)
    const resolver = membershipResolver({
      memberships: parts.organizations,
      resolver: () => ({ attributes: { [ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE]: 'acme', plan: 'gold' } }),
    })
    const forged: AuthenticationEvidence = {
      mechanism: 'bearer',
      credentialType: 'bearer-jwt',
      attributes: {
        [ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE]: 'acme',
        [SESSION_HANDLE_ATTRIBUTE]: ada.handle,
      },
    }
    const result = await resolveAuthorization(resolver, {
      principal: { id: ada.accountId, kind: 'user' },
      evidence: [forged],
    })
    if (result.kind !== 'authorized') throw new Error(result.reason)
    expect(result.snapshot.inTenant('acme')).toBe(true)
    expect(result.snapshot.attributes).toEqual({ plan: 'gold' })
    expect(activeOrganizationOf(result.snapshot)).toBeUndefined()
  })
})
