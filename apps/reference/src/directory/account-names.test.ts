import type { SignInMethod } from '@portcullis/core/accounts'
import { describe, expect, it } from 'vitest'
import { AccountNames, accountName } from './account-names.js'

const at = new Date('2026-01-01T00:00:00Z')
const password: SignInMethod = {
  kind: 'password',
  accountId: 'a1',
  username: 'dave',
  createdAt: at,
  passwordChangedAt: at,
}
const identity: SignInMethod = {
  kind: 'identity',
  accountId: 'a1',
  providerAccountId: 'p1',
  provider: 'demo',
  issuer: 'http://127.0.0.1:4000',
  subject: 'carol',
  scopes: ['openid'],
  linkedAt: at,
  updatedAt: at,
}
const passkey: SignInMethod = {
  kind: 'passkey',
  accountId: 'a1',
  credentialId: 'AAAA',
  name: 'Laptop',
  createdAt: at,
  lastUsedAt: null,
}

describe('the name of an account in the header', () => {
  it('is the username, else the email, else the name last shown, else the provider subject', () => {
    expect(accountName([identity, password], 'carol@example.com', 'old')).toBe('dave')
    expect(accountName([identity], 'carol@example.com', 'old')).toBe('carol@example.com')
    expect(accountName([passkey], undefined, 'dave')).toBe('dave')
    expect(accountName([identity, passkey], undefined, undefined)).toBe('carol (demo)')
    expect(accountName([passkey], undefined, undefined)).toBeUndefined()
  })

  it('follows the account store, and keeps the last name when the store does not answer', async () => {
    const names = new AccountNames()
    let methods: readonly SignInMethod[] | Error = [password]
    names.use(async () => {
      if (methods instanceof Error) throw methods
      return methods
    })
    expect(names.known('a1')).toBeUndefined()
    await expect(names.resolve('a1')).resolves.toBe('dave')
    expect(names.known('a1')).toBe('dave')
    methods = new Error('connection refused')
    await expect(names.resolve('a1')).resolves.toBe('dave')
    // The password removed: the passkey has no name of its own, the header keeps the one it showed.
    methods = [passkey]
    await expect(names.resolve('a1')).resolves.toBe('dave')
    names.rememberEmail('a1', 'dave@example.com')
    await expect(names.resolve('a1')).resolves.toBe('dave@example.com')
  })

  it('names a deleted account nothing', async () => {
    const names = new AccountNames()
    names.use(async () => null)
    await expect(names.resolve('gone')).resolves.toBeUndefined()
  })
})
