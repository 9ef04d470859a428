import { accounts } from '@portcullis/core/oauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresOAuthAccountStore } from '../src/index.js'
import { migratedDatabase, realProtector } from './support/database.js'
import { LoopbackIdentityProvider } from './support/identity-provider.js'

const db = await migratedDatabase()
const idp = new LoopbackIdentityProvider()
beforeAll(() => idp.start())
afterAll(async () => {
  await idp.stop()
  await db.close()
})

// Instances share configuration (provider registration and vault key), nothing else: each has its
// own pool, store and service, as two processes behind a load balancer would.
const protector = realProtector()
function instance(maxConnections = 8) {
  const store = new PostgresOAuthAccountStore({
    client: db.connect(maxConnections),
    provider: 'example-idp',
    clientId: 'client-1',
    protector,
  })
  return { store, service: new accounts.OAuthAccountService({ store, tokenEndpoint: idp.client() }) }
}

async function linkedWithTokens(store: PostgresOAuthAccountStore, subject: string) {
  const refreshToken = `rt-initial-${subject}`
  idp.issue(refreshToken)
  const outcome = await store.login({
    identity: { provider: 'example-idp', issuer: 'https://idp.example/', subject },
    grant: { scopes: ['openid'] },
    tokens: new accounts.ProviderTokenSet({
      accessToken: `at-initial-${subject}`,
      refreshToken,
      scopes: ['openid'],
      expiresAt: new Date(Date.now() + 60_000),
    }),
    provisionUnknown: true,
    now: new Date(),
  })
  return { id: outcome.link.providerAccountId, version: outcome.tokens?.version ?? 0 }
}

describe('two app instances refreshing one account', () => {
  it('32 callers over two instances: one version per round, every caller gets the stored winner', async () => {
    const [first, second] = [instance(), instance()]
    const { id, version: initial } = await linkedWithTokens(first.store, 'two-instances')
    let version = initial
    for (let round = 0; round < 5; round += 1) {
      const current = await first.store.getTokens(id)
      const callsBefore = idp.refreshCalls.length
      // Both instances' single flights reach the provider together: a true cross-process race.
      idp.holdRefreshes(2)
      const outcomes = await Promise.all(
        Array.from({ length: 32 }, (_, index) => (index % 2 === 0 ? first : second).service.refresh(id)),
      )
      const calls = idp.refreshCalls.slice(callsBefore)
      // In-process single flight: each instance called the provider once for this version, with the
      // version's refresh token; across instances the store CAS picked one winner.
      expect(calls.map((call) => call.refreshToken)).toEqual([
        current?.tokens.refreshToken,
        current?.tokens.refreshToken,
      ])
      const stored = await second.store.getTokens(id)
      expect(stored?.reference.version).toBe(version + 1)
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('refreshed')
        if (outcome.status !== 'refreshed') continue
        expect(outcome.tokens.reference.version).toBe(version + 1)
        expect(outcome.tokens.tokens.accessToken).toBe(stored?.tokens.accessToken)
        expect(outcome.tokens.tokens.refreshToken).toBe(stored?.tokens.refreshToken)
      }
      version += 1
    }
  })

  it('32 callers on one instance: the provider is called exactly once per version', async () => {
    const { store, service } = instance()
    const { id, version: initial } = await linkedWithTokens(store, 'one-instance')
    idp.refreshDelayMs = 20
    try {
      for (let round = 1; round <= 3; round += 1) {
        const callsBefore = idp.refreshCalls.length
        const outcomes = await Promise.all(Array.from({ length: 32 }, () => service.refresh(id)))
        expect(idp.refreshCalls.length - callsBefore).toBe(1)
        const versions = new Set(
          outcomes.map((o) => (o.status === 'refreshed' ? o.tokens.reference.version : 0)),
        )
        expect([...versions]).toEqual([initial + round])
      }
    } finally {
      idp.refreshDelayMs = 0
    }
  })

  it('a refresh token the provider rejects discards the tokens once, on whichever instance sees it', async () => {
    const [first, second] = [instance(), instance()]
    const { id } = await linkedWithTokens(first.store, 'revoked-upstream')
    await first.store.replaceTokens({
      providerAccountId: id,
      expectedVersion: (await first.store.getTokens(id))?.reference.version ?? 0,
      tokens: new accounts.ProviderTokenSet({
        accessToken: 'at-unknown',
        refreshToken: 'rt-the-provider-never-issued',
        scopes: ['openid'],
        expiresAt: new Date(Date.now() + 60_000),
      }),
    })
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? first : second).service.refresh(id)),
    )
    for (const outcome of outcomes) expect(outcome.status).toBe('reauthorization-required')
    expect(await second.store.getTokens(id)).toBeNull()
  })
})
