import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { MemoryAccountStore } from './memory-store.js'
import { passwordRecord } from './records.js'

const T0 = new Date('2031-03-04T05:06:07.000Z')
const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', new Uint8Array(32).fill(7)),
})

describe('MemoryAccountStore', () => {
  it('keeps its own copies: mutating a returned record or date changes nothing stored', async () => {
    const store = new MemoryAccountStore()
    const created = await store.createAccount({
      accountId: 'a-1',
      username: 'alice',
      passwordHash: hash,
      now: T0,
    })
    if (created.outcome !== 'created') throw new Error('not created')
    expect(Object.isFrozen(created.account)).toBe(true)
    created.account.createdAt.setTime(0)
    expect((await store.findPassword({ accountId: 'a-1' }))?.createdAt).toEqual(T0)
    const account = await store.getAccount('a-1')
    account?.updatedAt.setTime(0)
    expect((await store.getAccount('a-1'))?.updatedAt).toEqual(T0)
  })

  it('redacts the password hash from inspect and JSON, and keeps it readable', () => {
    const record = passwordRecord({
      accountId: 'a-1',
      username: 'alice',
      passwordHash: hash,
      securityEpoch: 3,
      status: 'active',
      createdAt: T0,
      updatedAt: T0,
      passwordChangedAt: T0,
    })
    expect(record.passwordHash).toBe(hash)
    expect(inspect(record)).toContain("passwordHash: '[redacted]'")
    expect(inspect(record)).toContain('securityEpoch: 3')
    expect(JSON.parse(JSON.stringify(record))).toMatchObject({
      passwordHash: '[redacted]',
      username: 'alice',
    })
  })

  it('lists a password and the identities of every provider view as the one account', async () => {
    const store = new MemoryAccountStore()
    await store.createAccount({ accountId: 'a-1', username: 'alice', passwordHash: hash, now: T0 })
    const google = store.oauth({ provider: 'google', clientId: 'g', protector })
    const github = store.oauth({ provider: 'github', clientId: 'h', protector })
    const identity = (provider: string) => ({
      provider,
      issuer: `https://${provider}.example`,
      subject: 's-1',
    })
    await google.link({
      accountId: 'a-1',
      identity: identity('google'),
      grant: { scopes: ['openid'] },
      now: T0,
    })
    await github.link({
      accountId: 'a-1',
      identity: identity('github'),
      grant: { scopes: ['user'] },
      now: T0,
    })
    const methods = await store.listSignInMethods('a-1')
    expect(methods.map((method) => (method.kind === 'identity' ? method.provider : method.kind))).toEqual([
      'password',
      'github',
      'google',
    ])
    expect((await google.getAccount('a-1'))?.loginMethods).toBe(3)
    expect(JSON.stringify(methods)).not.toContain(hash)
  })

  it('a provider first sign-in creates an account the password side can see and extend', async () => {
    const store = new MemoryAccountStore()
    const google = store.oauth({ provider: 'google', clientId: 'g', protector })
    const login = await google.login({
      identity: { provider: 'google', issuer: 'https://google.example', subject: 'new' },
      grant: { scopes: ['openid'] },
      provisionUnknown: true,
      now: T0,
    })
    const accountId = login.link.accountId
    expect(await store.getAccount(accountId)).toMatchObject({ securityEpoch: 1, status: 'active' })
    expect(await store.findPassword({ accountId })).toBeNull()
    const added = await store.addPassword({ accountId, username: 'newcomer', passwordHash: hash, now: T0 })
    expect(added.outcome).toBe('added')
    expect((await store.findPassword({ username: 'newcomer' }))?.accountId).toBe(accountId)
  })

  it('deletion takes the data of the cascaded stores in the same step', async () => {
    const removed: string[] = []
    const store = new MemoryAccountStore({
      cascade: [{ deleteAccountData: (accountId) => removed.push(accountId) }],
    })
    await store.createAccount({ accountId: 'a-1', username: 'alice', passwordHash: hash, now: T0 })
    expect(await store.deleteAccount({ accountId: 'a-1', now: T0 })).toEqual({ outcome: 'deleted' })
    expect(removed).toEqual(['a-1'])
    expect(await store.deleteAccount({ accountId: 'a-1', now: T0 })).toEqual({ outcome: 'not-found' })
    expect(removed).toEqual(['a-1'])
  })

  it('inspects as counts only', async () => {
    const store = new MemoryAccountStore()
    await store.createAccount({ accountId: 'a-1', username: 'alice', passwordHash: hash, now: T0 })
    expect(inspect(store)).toBe('MemoryAccountStore { accounts: 1, invites: 0 }')
  })
})
