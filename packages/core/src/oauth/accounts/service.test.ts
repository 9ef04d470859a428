import { randomBytes } from 'node:crypto'
import { setImmediate as tick } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { AESGCMOAuthTransactionProtector } from '../../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../protection/key.js'
import { drainRevocationRetries } from './drain.js'
import { OAuthAccountError } from './errors.js'
import { MemoryOAuthAccountStore } from './memory-store.js'
import type { RevocationTokenType } from './records.js'
import { OAuthAccountService } from './service.js'
import type { TokenEndpointClient, TokenRefreshResult } from './token-endpoint.js'
import { ProviderTokenSet } from './token-set.js'

const NOW = new Date('2031-03-04T05:06:07Z')

/**
 * The provider's token endpoint as the tests script it: refresh answers come from `onRefresh`,
 * revocations fail while `revokeFails` says so; every call is recorded.
 */
class ScriptedEndpoint implements TokenEndpointClient {
  readonly refreshCalls: { refreshToken: string; scopes: readonly string[] }[] = []
  readonly revokeCalls: { token: string; tokenTypeHint: RevocationTokenType }[] = []
  revokeFails: (type: RevocationTokenType) => boolean = () => false
  onRevoke: () => Promise<void> = async () => {}
  onRefresh: (call: number) => Promise<TokenRefreshResult> = async (call) => ({
    kind: 'refreshed',
    tokens: {
      accessToken: `access-rotated-${call}`,
      expiresIn: 3600,
      refreshToken: `refresh-rotated-${call}`,
    },
  })

  async refresh(request: { refreshToken: string; scopes: readonly string[] }): Promise<TokenRefreshResult> {
    this.refreshCalls.push(request)
    return this.onRefresh(this.refreshCalls.length)
  }

  async revoke(request: { token: string; tokenTypeHint: RevocationTokenType }): Promise<void> {
    this.revokeCalls.push(request)
    await this.onRevoke()
    if (this.revokeFails(request.tokenTypeHint)) throw new Error(`upstream 503 for ${request.token}`)
  }
}

async function setup(options: { refreshToken?: string | null } = {}) {
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const store = new MemoryOAuthAccountStore({ provider: 'example', clientId: 'client', protector })
  const endpoint = new ScriptedEndpoint()
  let now = NOW
  const clock = () => now
  const service = new OAuthAccountService({ store, tokenEndpoint: endpoint, clock })
  const initial = new ProviderTokenSet({
    accessToken: 'access-initial',
    refreshToken: options.refreshToken === undefined ? 'refresh-initial' : options.refreshToken,
    idToken: 'id-initial',
    scopes: ['openid', 'calendar.read'],
    expiresAt: NOW,
  })
  const login = await store.login({
    identity: { provider: 'example', issuer: 'https://idp.example/', subject: 'person' },
    grant: { scopes: ['openid', 'calendar.read'] },
    tokens: initial,
    provisionUnknown: true,
    now: NOW,
  })
  const id = login.link.providerAccountId
  return {
    store,
    endpoint,
    service,
    id,
    initialVersion: login.tokens?.version ?? 0,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms)
    },
    clock,
  }
}

describe('OAuthAccountService.refresh', () => {
  it('coalesces 16 concurrent refreshes into one provider call (single flight)', async () => {
    const { service, endpoint, store, id, initialVersion } = await setup()
    const outcomes = await Promise.all(Array.from({ length: 16 }, () => service.refresh(id)))
    expect(endpoint.refreshCalls).toHaveLength(1)
    expect(endpoint.refreshCalls[0]).toEqual({
      refreshToken: 'refresh-initial',
      scopes: ['calendar.read', 'openid'],
    })
    const accessTokens = new Set(
      outcomes.map((outcome) => (outcome.status === 'refreshed' ? outcome.tokens.tokens.accessToken : '')),
    )
    expect([...accessTokens]).toEqual(['access-rotated-1'])
    const stored = await store.getTokens(id)
    expect(stored?.reference.version).toBeGreaterThan(initialVersion)
    expect(stored?.tokens.refreshToken).toBe('refresh-rotated-1')

    // The flight is over: a later refresh calls the provider again.
    await service.refresh(id)
    expect(endpoint.refreshCalls).toHaveLength(2)
  })

  it('across two processes the CAS loser re-reads and returns the winner tokens', async () => {
    const { store, endpoint, id } = await setup()
    let arrived = 0
    const bothArrived = new Promise<void>((resolve) => {
      endpoint.onRefresh = async (call) => {
        arrived += 1
        if (arrived === 2) resolve()
        await bothArrived
        // The second caller answers later, so the first one wins the swap.
        if (call === 2) await tick()
        return { kind: 'refreshed', tokens: { accessToken: `access-process-${call}`, expiresIn: 600 } }
      }
    })
    const processA = new OAuthAccountService({ store, tokenEndpoint: endpoint, clock: () => NOW })
    const processB = new OAuthAccountService({ store, tokenEndpoint: endpoint, clock: () => NOW })
    const [a, b] = await Promise.all([processA.refresh(id), processB.refresh(id)])
    expect(endpoint.refreshCalls).toHaveLength(2)
    const accessOf = (outcome: typeof a) =>
      outcome.status === 'refreshed' ? outcome.tokens.tokens.accessToken : null
    expect(accessOf(a)).toBe('access-process-1')
    expect(accessOf(b)).toBe('access-process-1')
    expect((await store.getTokens(id))?.tokens.accessToken).toBe('access-process-1')
  })

  it('keeps the refresh token, scopes and ID token when the provider omits them, and sets expiry from expires_in', async () => {
    const { service, endpoint, id } = await setup()
    endpoint.onRefresh = async () => ({
      kind: 'refreshed',
      tokens: { accessToken: 'access-2', expiresIn: 120 },
    })
    const outcome = await service.refresh(id)
    expect(outcome.status).toBe('refreshed')
    if (outcome.status !== 'refreshed') return
    expect(outcome.tokens.tokens.refreshToken).toBe('refresh-initial')
    expect(outcome.tokens.tokens.idToken).toBe('id-initial')
    expect(outcome.tokens.tokens.scopes).toEqual(['calendar.read', 'openid'])
    expect(outcome.tokens.tokens.expiresAt.getTime()).toBe(NOW.getTime() + 120_000)
  })

  it('invalid_grant discards the tokens and reports re-authorization required', async () => {
    const { service, endpoint, store, id } = await setup()
    endpoint.onRefresh = async () => ({ kind: 'invalid-grant' })
    expect(await service.refresh(id)).toEqual({ status: 'reauthorization-required', reason: 'invalid-grant' })
    expect(await store.getTokens(id)).toBeNull()
    expect(await service.refresh(id)).toEqual({ status: 'reauthorization-required', reason: 'no-tokens' })
    expect(endpoint.refreshCalls).toHaveLength(1)
  })

  it('invalid_grant after another process already rotated returns the rotated tokens and discards nothing', async () => {
    const { service, endpoint, store, id, initialVersion } = await setup()
    endpoint.onRefresh = async () => {
      // Another process rotates the tokens while this call is in flight; our old refresh token is now dead.
      const rotated = (await store.getTokens(id))?.tokens.with({ accessToken: 'access-other-process' })
      if (rotated)
        await store.replaceTokens({ providerAccountId: id, expectedVersion: initialVersion, tokens: rotated })
      return { kind: 'invalid-grant' }
    }
    const outcome = await service.refresh(id)
    expect(outcome.status === 'refreshed' && outcome.tokens.tokens.accessToken).toBe('access-other-process')
    expect((await store.getTokens(id))?.tokens.accessToken).toBe('access-other-process')
  })

  it('needs no provider call without a refresh token', async () => {
    const { service, endpoint, id } = await setup({ refreshToken: null })
    expect(await service.refresh(id)).toEqual({
      status: 'reauthorization-required',
      reason: 'no-refresh-token',
    })
    expect(endpoint.refreshCalls).toHaveLength(0)
  })

  it('a provider outage is a secret-free unavailable error and leaves the tokens alone', async () => {
    const { service, endpoint, store, id, initialVersion } = await setup()
    endpoint.onRefresh = async () => {
      throw new Error('connect ECONNREFUSED while sending refresh-initial')
    }
    const error = await service.refresh(id).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthAccountError)
    expect(error).toMatchObject({ code: 'oauth.provider.unavailable', errorClass: 'unavailable' })
    expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain('refresh-initial')
    expect((await store.getTokens(id))?.reference.version).toBe(initialVersion)
  })

  it.each([
    ['zero lifetime', { accessToken: 'a', expiresIn: 0 }],
    ['fractional lifetime', { accessToken: 'a', expiresIn: 1.5 }],
    ['ten-year-plus lifetime', { accessToken: 'a', expiresIn: 315_360_001 }],
    ['access token with a space', { accessToken: 'a b', expiresIn: 60 }],
    ['non-bearer type', { accessToken: 'a', expiresIn: 60, tokenType: 'mac' }],
    ['malformed scope', { accessToken: 'a', expiresIn: 60, scopes: ['bad scope'] }],
  ])('refuses a response with a %s as unavailable, keeping the tokens', async (_label, tokens) => {
    const { service, endpoint, store, id, initialVersion } = await setup()
    endpoint.onRefresh = async () => ({ kind: 'refreshed', tokens })
    await expect(service.refresh(id)).rejects.toMatchObject({ code: 'oauth.provider.unavailable' })
    expect((await store.getTokens(id))?.reference.version).toBe(initialVersion)
  })

  it('refuses blank provider account ids with a typed error', async () => {
    const { service } = await setup()
    await expect(service.refresh(' ')).rejects.toMatchObject({ code: 'oauth.account.invalid_input' })
    await expect(service.revoke('')).rejects.toMatchObject({ code: 'oauth.account.invalid_input' })
  })
})

describe('OAuthAccountService.revoke and drainRevocationRetries', () => {
  it('revokes the refresh token, then the access token, then discards the tokens', async () => {
    const { service, endpoint, store, id } = await setup()
    expect(await service.revoke(id)).toEqual({ status: 'revoked' })
    expect(endpoint.revokeCalls).toEqual([
      { token: 'refresh-initial', tokenTypeHint: 'refresh_token' },
      { token: 'access-initial', tokenTypeHint: 'access_token' },
    ])
    expect(await store.getTokens(id)).toBeNull()
    expect(await store.claimRevocationRetries({ now: NOW, leaseSeconds: 60, limit: 10 })).toHaveLength(0)
    expect(await service.revoke(id)).toEqual({ status: 'nothing-to-revoke' })
    expect(endpoint.revokeCalls).toHaveLength(2)
  })

  it('an upstream failure stages an encrypted retry, reports revocation pending, and a drain finishes it', async () => {
    const { service, endpoint, store, id, clock } = await setup()
    endpoint.revokeFails = (type) => type === 'access_token'
    const outcome = await service.revoke(id)
    expect(outcome).toMatchObject({ status: 'revocation-pending', failedTokenTypes: ['access_token'] })
    expect(await store.getTokens(id)).toBeNull()

    endpoint.revokeFails = () => false
    endpoint.revokeCalls.length = 0
    const report = await drainRevocationRetries({ store, tokenEndpoint: endpoint, clock })
    expect(report).toEqual({ claimed: 1, completed: 1, failed: 0, superseded: 0 })
    expect(endpoint.revokeCalls).toEqual([{ token: 'access-initial', tokenTypeHint: 'access_token' }])
    expect(await drainRevocationRetries({ store, tokenEndpoint: endpoint, clock })).toMatchObject({
      claimed: 0,
    })
  })

  it('a drain that still fails leaves the retry for the next drain after its lease', async () => {
    const { service, endpoint, store, id, clock, advance } = await setup()
    endpoint.revokeFails = () => true
    expect(await service.revoke(id)).toMatchObject({ failedTokenTypes: ['refresh_token', 'access_token'] })
    const failing = await drainRevocationRetries({ store, tokenEndpoint: endpoint, clock, leaseSeconds: 30 })
    expect(failing).toEqual({ claimed: 1, completed: 0, failed: 1, superseded: 0 })
    expect(await drainRevocationRetries({ store, tokenEndpoint: endpoint, clock })).toMatchObject({
      claimed: 0,
    })
    endpoint.revokeFails = () => false
    advance(30_000)
    const recovered = await drainRevocationRetries({ store, tokenEndpoint: endpoint, clock })
    expect(recovered).toEqual({ claimed: 1, completed: 1, failed: 0, superseded: 0 })
  })

  it('tokens rotated by a concurrent refresh during revocation are revoked too', async () => {
    const { service, endpoint, store, id, initialVersion } = await setup()
    let rotated = false
    endpoint.onRevoke = async () => {
      if (rotated) return
      rotated = true
      const current = await store.getTokens(id)
      if (current === null) return
      await store.replaceTokens({
        providerAccountId: id,
        expectedVersion: initialVersion,
        tokens: current.tokens.with({
          accessToken: 'access-rotated-meanwhile',
          refreshToken: 'refresh-rotated-meanwhile',
        }),
      })
    }
    expect(await service.revoke(id)).toEqual({ status: 'revoked' })
    expect(endpoint.revokeCalls.map((call) => call.token)).toEqual([
      'refresh-initial',
      'access-initial',
      'refresh-rotated-meanwhile',
      'access-rotated-meanwhile',
    ])
    expect(await store.getTokens(id)).toBeNull()
  })

  it('validates drain options', async () => {
    const { store, endpoint } = await setup()
    await expect(drainRevocationRetries({ store, tokenEndpoint: endpoint, limit: 0 })).rejects.toMatchObject({
      code: 'oauth.account.invalid_input',
    })
    const invalidClock = () => new Date(Number.NaN)
    await expect(
      drainRevocationRetries({ store, tokenEndpoint: endpoint, clock: invalidClock }),
    ).rejects.toMatchObject({
      code: 'oauth.account.invalid_input',
    })
  })
})
