import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type AccessTokenFixture,
  CLIENT_ID,
  startAccessTokenFixture,
} from '../../test/support/access-token-fixture.js'
import { bearer } from '../../test/support/workload-fixture.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { MemoryRevocationNotices } from '../revocation/memory-revocation-notices.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { OAuthGrantStatus, OAuthGrants } from './port.js'

let fixture: AccessTokenFixture
const start = Math.floor(Date.UTC(2030, 0, 1) / 1000)

beforeAll(async () => {
  fixture = await startAccessTokenFixture()
})
afterAll(() => fixture.close())
beforeEach(() => {
  fixture.nowSeconds = start
})

/** The fixture's grants, `status` reads counted. */
function counted(grants: Pick<OAuthGrants, 'status'> = fixture.grants) {
  let reads = 0
  return {
    grants: {
      status: (grantId: string) => {
        reads += 1
        return grants.status(grantId)
      },
    },
    reads: () => reads,
  }
}

async function tokenForNewGrant() {
  const { accountId, grantId } = await fixture.grant()
  return { accountId, grantId, token: await fixture.sign(fixture.claims(accountId, grantId)) }
}

const now = () => new Date(fixture.nowSeconds * 1000)

describe('oauthAccessTokens: grants ending', () => {
  it('refuses at once every token of a revoked grant, though its status and signature were cached', async () => {
    const { grants, reads } = counted()
    const mechanism = fixture.mechanism({ grants })
    const { grantId, token } = await tokenForNewGrant()
    const other = await tokenForNewGrant()
    expect((await bearer(mechanism, token)).kind).toBe('authenticated')
    expect((await bearer(mechanism, other.token)).kind).toBe('authenticated')
    // Both cached: answered synchronously, without a read.
    const cached = mechanism.authenticate({
      header: () => `Bearer ${token}`,
      cookie: () => undefined,
      method: 'GET',
      path: '/',
    })
    expect(cached).toMatchObject({ kind: 'authenticated' })
    expect(reads()).toBe(2)

    await fixture.grants.revokeGrant(grantId)
    expect(await bearer(mechanism, token)).toEqual({ kind: 'invalid', reason: 'oauth: grant_not_active' })
    expect((await bearer(mechanism, other.token)).kind).toBe('authenticated')
    expect(reads()).toBe(3)
  })

  it('refuses a disconnected client (OAuthGrants.disconnect)', async () => {
    const mechanism = fixture.mechanism()
    const { accountId, grantId, token } = await tokenForNewGrant()
    expect((await bearer(mechanism, token)).kind).toBe('authenticated')
    expect(await fixture.grants.disconnect(accountId, grantId)).toBe(true)
    expect((await bearer(mechanism, token)).kind).toBe('invalid')
  })

  it.each([
    [
      'the security epoch moves (sign out everywhere)',
      (accountId: string) => fixture.accounts.bumpSecurityEpoch({ accountId, now: now() }),
    ],
    [
      'the account is disabled',
      (accountId: string) => fixture.accounts.setAccountStatus({ accountId, status: 'disabled', now: now() }),
    ],
    [
      'the account is deleted',
      (accountId: string) => fixture.accounts.deleteAccount({ accountId, now: now() }),
    ],
  ])('refuses every grant of the account when %s', async (_case, change) => {
    const { grants, reads } = counted()
    const mechanism = fixture.mechanism({ grants })
    const { accountId, grantId, token } = await tokenForNewGrant()
    await fixture.grants.upsert({
      model: 'Grant',
      id: `${grantId}-2`,
      payload: { accountId, clientId: CLIENT_ID },
      expiresAt: new Date(fixture.nowSeconds * 1000 + 60_000),
    })
    const second = await fixture.sign(fixture.claims(accountId, `${grantId}-2`))
    const bystander = await tokenForNewGrant()
    for (const each of [token, second, bystander.token])
      expect((await bearer(mechanism, each)).kind).toBe('authenticated')
    for (const each of [token, second, bystander.token]) await bearer(mechanism, each)
    expect(reads()).toBe(3)

    await change(accountId)
    expect(await bearer(mechanism, token)).toEqual({ kind: 'invalid', reason: 'oauth: grant_not_active' })
    expect(await bearer(mechanism, second)).toEqual({ kind: 'invalid', reason: 'oauth: grant_not_active' })
    expect((await bearer(mechanism, bystander.token)).kind).toBe('authenticated')
    expect(reads()).toBe(5)
  })

  it('without a notice, a cached status is believed (the notices are what keep it true)', async () => {
    const silent = new MemoryRevocationNotices()
    const { grants, reads } = counted()
    const mechanism = fixture.mechanism({ grants, notices: silent })
    const { grantId, token } = await tokenForNewGrant()
    expect((await bearer(mechanism, token)).kind).toBe('authenticated')
    await fixture.grants.revokeGrant(grantId) // notifies the fixture's notices, not `silent`
    expect((await bearer(mechanism, token)).kind).toBe('authenticated')
    expect(reads()).toBe(1)
    await silent.publish({ kind: 'grant', grantId })
    expect((await bearer(mechanism, token)).kind).toBe('invalid')
    silent.subscribe({ revoked: () => {}, flush: () => {} })
  })

  it('reads the grant on every request while the notices are not trusted, and when grantCache is false', async () => {
    let trusted = false
    const inner = new MemoryRevocationNotices()
    const flaky: RevocationNotices = {
      trusted: () => trusted,
      subscribe: (subscriber) => inner.subscribe(subscriber),
      publish: (notice) => inner.publish(notice),
    }
    const { grants, reads } = counted()
    const mechanism = fixture.mechanism({ grants, notices: flaky })
    const { token } = await tokenForNewGrant()
    for (let index = 0; index < 3; index += 1)
      expect((await bearer(mechanism, token)).kind).toBe('authenticated')
    expect(reads()).toBe(3)
    trusted = true
    for (let index = 0; index < 3; index += 1) await bearer(mechanism, token)
    expect(reads()).toBe(4)
    trusted = false
    await bearer(mechanism, token)
    expect(reads()).toBe(5)

    const uncached = counted()
    const strict = fixture.mechanism({ grants: uncached.grants, grantCache: false })
    for (let index = 0; index < 3; index += 1) await bearer(strict, token)
    expect(uncached.reads()).toBe(3)
  })

  it('a flush drops every cached status', async () => {
    const notices = new MemoryRevocationNotices()
    let flush = () => {}
    const relay: RevocationNotices = {
      trusted: () => true,
      subscribe: (subscriber) => {
        flush = () => subscriber.flush()
        return notices.subscribe(subscriber)
      },
      publish: (notice) => notices.publish(notice),
    }
    const { grants, reads } = counted()
    const mechanism = fixture.mechanism({ grants, notices: relay })
    const { token } = await tokenForNewGrant()
    await bearer(mechanism, token)
    await bearer(mechanism, token)
    expect(reads()).toBe(1)
    flush()
    await bearer(mechanism, token)
    expect(reads()).toBe(2)
  })

  it('keeps the grant cache bounded', async () => {
    const { grants, reads } = counted()
    const mechanism = fixture.mechanism({ grants, grantCache: { maxEntries: 2 } })
    const tokens = [await tokenForNewGrant(), await tokenForNewGrant(), await tokenForNewGrant()]
    for (const { token } of tokens) await bearer(mechanism, token)
    expect(reads()).toBe(3)
    await bearer(mechanism, tokens[2]?.token as string)
    await bearer(mechanism, tokens[1]?.token as string)
    expect(reads()).toBe(3)
    await bearer(mechanism, tokens[0]?.token as string) // the oldest was dropped to make room
    expect(reads()).toBe(4)
  })

  it('answers unavailable when the grant status cannot be read', async () => {
    const mechanism = fixture.mechanism({
      grants: { status: () => Promise.reject(new Error('connection refused')) },
    })
    const { token } = await tokenForNewGrant()
    expect(await bearer(mechanism, token)).toEqual({
      kind: 'unavailable',
      reason: 'oauth: grant status unavailable',
    })
  })
})

describe('oauthAccessTokens: a notice during an in-flight grant read', () => {
  type Pending = { grantId: string; resolve: (status: OAuthGrantStatus | undefined) => void }[]
  function controlled() {
    const pending: Pending = []
    return {
      grants: {
        status: (grantId: string) =>
          new Promise<OAuthGrantStatus | undefined>((resolve) => {
            pending.push({ grantId, resolve })
          }),
      },
      pending,
    }
  }
  const settle = () => new Promise((resolve) => setImmediate(resolve))

  /**
   * A first check that verifies the token's signature (which caches it) and finds the grant ended: from
   * then on a check reaches the grant read synchronously, so `settle()` is enough to see it.
   */
  async function warmed(mechanism: AuthenticationMechanism, token: string, pending: Pending) {
    const first = bearer(mechanism, token)
    const deadline = Date.now() + 5000
    while (pending.length === 0 && Date.now() < deadline) await settle()
    pending.shift()?.resolve(undefined)
    expect((await first).kind).toBe('invalid')
  }

  it('never caches an active status read before the notice, and later checks do not join that read', async () => {
    const notices = new MemoryRevocationNotices()
    const { grants, pending } = controlled()
    const mechanism = fixture.mechanism({ grants, notices })
    const { accountId, grantId, token } = await tokenForNewGrant()
    await warmed(mechanism, token, pending)
    const active: OAuthGrantStatus = { grantId, accountId, clientId: CLIENT_ID }

    const first = bearer(mechanism, token)
    await settle()
    expect(pending).toHaveLength(1)
    await notices.publish({ kind: 'grant', grantId }) // the grant ends while the read is in flight
    const second = bearer(mechanism, token)
    await settle()
    expect(pending).toHaveLength(2) // a fresh read, not the one begun before the notice
    pending[0]?.resolve(active) // the stale read answers "active"
    pending[1]?.resolve(undefined)
    expect((await first).kind).toBe('authenticated') // it began before the revocation
    expect(await second).toEqual({ kind: 'invalid', reason: 'oauth: grant_not_active' })

    const third = bearer(mechanism, token)
    await settle()
    expect(pending).toHaveLength(3) // the stale "active" was not cached
    pending[2]?.resolve(undefined)
    expect((await third).kind).toBe('invalid')
  })

  it('an account notice during the read is honoured the same way', async () => {
    const notices = new MemoryRevocationNotices()
    const { grants, pending } = controlled()
    const mechanism = fixture.mechanism({ grants, notices })
    const { accountId, grantId, token } = await tokenForNewGrant()
    await warmed(mechanism, token, pending)
    const first = bearer(mechanism, token)
    await settle()
    expect(pending).toHaveLength(1)
    await notices.publish({ kind: 'account', accountId }) // sign out everywhere while the read is in flight
    const second = bearer(mechanism, token)
    await settle()
    expect(pending).toHaveLength(2) // not joined to the read begun before the notice
    pending[0]?.resolve({ grantId, accountId, clientId: CLIENT_ID })
    pending[1]?.resolve(undefined)
    expect((await first).kind).toBe('authenticated')
    expect((await second).kind).toBe('invalid')
    const third = bearer(mechanism, token)
    await settle()
    expect(pending).toHaveLength(3) // nothing cached from the stale read
    pending[2]?.resolve(undefined)
    expect((await third).kind).toBe('invalid')
  })

  it('checks that start together share one read when no notice came between', async () => {
    const notices = new MemoryRevocationNotices()
    const { grants, pending } = controlled()
    const mechanism = fixture.mechanism({ grants, notices })
    const { accountId, grantId, token } = await tokenForNewGrant()
    await warmed(mechanism, token, pending)
    const checks = [bearer(mechanism, token), bearer(mechanism, token), bearer(mechanism, token)]
    await settle()
    expect(pending).toHaveLength(1)
    pending[0]?.resolve({ grantId, accountId, clientId: CLIENT_ID })
    for (const check of checks) expect((await check).kind).toBe('authenticated')
    expect((await bearer(mechanism, token)).kind).toBe('authenticated')
    expect(pending).toHaveLength(1)
  })
})
