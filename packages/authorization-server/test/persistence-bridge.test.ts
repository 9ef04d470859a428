import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import { errors } from 'oidc-provider'
import { beforeEach, describe, expect, it } from 'vitest'
import { persistenceBridge } from '../src/server/persistence-bridge.js'

let store: MemoryOAuthServerStore
let revoked: string[]
let now: number

beforeEach(() => {
  store = new MemoryOAuthServerStore({ accounts: new MemoryAccountStore(), clock: () => now })
  now = Date.parse('2026-01-01T00:00:00Z')
  revoked = []
  const revoke = store.revokeGrant.bind(store)
  store.revokeGrant = async (grantId) => {
    revoked.push(grantId)
    await revoke(grantId)
  }
})

const bridge = (ttl?: number) =>
  persistenceBridge({ store, clock: () => now, unusedClientTtlSeconds: ttl, errors }).adapter

describe('the persistence bridge', () => {
  it('stores payloads with their expiry and reports consumption as a timestamp', async () => {
    const tokens = bridge()('RefreshToken')
    await tokens.upsert('rt-1', { grantId: 'g-1', jti: 'rt-1' } as never, 60)
    expect((await store.find('RefreshToken', { id: 'rt-1' }))?.expiresAt?.getTime()).toBe(now + 60_000)
    await tokens.consume('rt-1')
    expect(await tokens.find('rt-1')).toMatchObject({ grantId: 'g-1', consumed: Math.floor(now / 1000) })
    expect(revoked).toEqual([])
  })

  it('revokes the grant and fails with invalid_grant when a value is consumed twice', async () => {
    const codes = bridge()('AuthorizationCode')
    await codes.upsert('code-1', { grantId: 'g-2' } as never, 60)
    await store.upsert({
      model: 'Grant',
      id: 'g-2',
      payload: { accountId: 'a', clientId: 'c' },
      expiresAt: undefined,
    })
    const outcomes = await Promise.allSettled([
      codes.consume('code-1'),
      codes.consume('code-1'),
      codes.consume('code-1'),
    ])
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(errors.InvalidGrant)
    }
    expect(revoked).toContain('g-2')
    expect(await store.find('Grant', { id: 'g-2' })).toBeUndefined()
    expect(await store.find('AuthorizationCode', { id: 'code-1' })).toBeUndefined()
  })

  it('fails with invalid_grant when the value is gone', async () => {
    await expect(bridge()('RefreshToken').consume('missing')).rejects.toBeInstanceOf(errors.InvalidGrant)
  })

  it('revokes a grant once even when the provider asks for it model by model', async () => {
    const adapter = bridge()
    await Promise.all([
      adapter('AccessToken').revokeByGrantId('g-3'),
      adapter('RefreshToken').revokeByGrantId('g-3'),
      adapter('AuthorizationCode').revokeByGrantId('g-3'),
      adapter('Grant').destroy('g-3'),
    ])
    expect(revoked).toEqual(['g-3'])
  })

  it('keeps a registered client only once a grant is made for it', async () => {
    const adapter = bridge(3600)
    await adapter('Client').upsert('client-1', { client_id: 'client-1' } as never)
    expect((await store.find('Client', { id: 'client-1' }))?.expiresAt?.getTime()).toBe(now + 3_600_000)
    await adapter('Grant').upsert('g-4', { accountId: 'a', clientId: 'client-1' } as never, 600)
    expect((await store.find('Client', { id: 'client-1' }))?.expiresAt).toBeUndefined()
    await adapter('Client').upsert('client-1', { client_id: 'client-1', client_name: 'x' } as never)
    expect((await store.find('Client', { id: 'client-1' }))?.expiresAt).toBeUndefined()
    now += 3_600_001
    expect(await adapter('Client').find('client-1')).toMatchObject({ client_name: 'x' })
  })

  it('lets an unused registered client expire', async () => {
    const adapter = bridge(60)
    await adapter('Client').upsert('client-2', { client_id: 'client-2' } as never)
    now += 60_001
    expect(await adapter('Client').find('client-2')).toBeUndefined()
  })
})
