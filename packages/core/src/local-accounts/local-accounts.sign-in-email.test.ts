import { describe, expect, it } from 'vitest'
import { localFixture } from '../../test/support/local-accounts.js'
import type { AccountStore } from '../accounts/port.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { LocalAccountsOptions } from './local-accounts-options.js'
import type { SessionSignIn } from './sign-in.js'

const PASSWORD = 'correct horse battery staple'
const ADDRESS = 'Alice.Smith@mail.example'

async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; errorClass: string }> {
  try {
    await promise
  } catch (error) {
    if (!isPortcullisError(error)) throw error
    return { code: error.code, message: error.message, errorClass: error.errorClass }
  }
  throw new Error('expected a refusal')
}

/** Counts the store's password lookups, by kind of key. */
function countingLookups(accounts: AccountStore): { lookups: string[] } {
  const seen = { lookups: [] as string[] }
  const find = accounts.findPassword.bind(accounts)
  accounts.findPassword = (query) => {
    seen.lookups.push(Object.keys(query).join())
    return find(query)
  }
  return seen
}

async function fixture(overrides: Partial<LocalAccountsOptions> = {}) {
  const parts = await localFixture({ signInWith: ['username', 'email'], ...overrides })
  const { accountId } = await parts.local.register({ username: 'alice', password: PASSWORD })
  const now = new Date(parts.clock())
  await parts.accounts.addEmailAddress({ accountId, address: ADDRESS, now })
  await parts.accounts.verifyEmailAddress({ accountId, address: ADDRESS, now })
  const { accountId: bob } = await parts.local.register({ username: 'bob', password: PASSWORD })
  await parts.accounts.addEmailAddress({ accountId: bob, address: 'pending@mail.example', now })
  return { ...parts, accountId, bob }
}

const login = (local: Awaited<ReturnType<typeof fixture>>['local'], username: string, password = PASSWORD) =>
  local.login({ username, password }, { transport: 'session' }) as Promise<SessionSignIn>

describe('sign-in by a verified email address', () => {
  it('signs in with the verified address as normalization has it (domain case and spaces do not matter)', async () => {
    const { local, accountId } = await fixture()
    expect((await login(local, ADDRESS)).accountId).toBe(accountId)
    expect((await login(local, '  Alice.Smith@MAIL.Example ')).accountId).toBe(accountId)
    expect((await login(local, 'alice')).accountId).toBe(accountId)
  })

  it('never folds the local part unless configured', async () => {
    const strict = await fixture()
    expect((await refusal(login(strict.local, 'alice.smith@mail.example'))).code).toBe(
      'local.invalid_credentials',
    )
    const folding = await localFixture({ signInWith: ['email'], emailAddresses: { foldLocalPartCase: true } })
    const { accountId } = await folding.local.register({ username: 'carol', password: PASSWORD })
    const now = new Date(folding.clock())
    await folding.accounts.addEmailAddress({ accountId, address: 'carol@mail.example', now })
    await folding.accounts.verifyEmailAddress({ accountId, address: 'carol@mail.example', now })
    const signIn = (await folding.local.login(
      { username: 'CAROL@Mail.Example', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    expect(signIn.accountId).toBe(accountId)
  })

  it('an unverified address signs nobody in, and answers as an unknown username and an unknown address do', async () => {
    const { local, events } = await fixture()
    const unverified = await refusal(login(local, 'pending@mail.example'))
    const unknownAddress = await refusal(login(local, 'nobody@mail.example'))
    const unknownName = await refusal(login(local, 'nobody'))
    expect(unverified).toEqual(unknownName)
    expect(unknownAddress).toEqual(unknownName)
    expect(unknownName.code).toBe('local.invalid_credentials')
    const reasons = events.filter((event) => event.type === 'login.failed').map((event) => event.reason)
    expect(reasons).toEqual(['unknown_account', 'unknown_account', 'unknown_account'])
  })

  it('does the same work for a known and an unknown address: every lookup it allows, then one verification', async () => {
    const { local, accounts, hasher } = await fixture()
    const seen = countingLookups(accounts)
    const verifications: string[] = []
    const verify = hasher.verify.bind(hasher)
    hasher.verify = (hash, password) => {
      verifications.push('verify')
      return verify(hash, password)
    }
    const work = async (identifier: string) => {
      seen.lookups.length = 0
      await refusal(login(local, identifier, 'wrong password'))
      return [...seen.lookups]
    }
    const known = await work(ADDRESS)
    const unverified = await work('pending@mail.example')
    const unknown = await work('nobody@mail.example')
    expect(known).toEqual(['verifiedEmail', 'username'])
    expect(unverified).toEqual(known)
    expect(unknown).toEqual(known)
    expect(await work('nobody')).toEqual(['username'])
    expect(await work('alice')).toEqual(['username'])
    // Five attempts, five verifications: the known address against its hash, the others against the
    // dummy hash, through the same hasher.
    expect(verifications).toHaveLength(5)
  })

  it('counts attempts by address and by username against one per-account budget', async () => {
    const { local } = await fixture({ rateLimit: { perAccount: { limit: 3, windowSeconds: 900 } } })
    await refusal(login(local, 'alice', 'wrong'))
    await refusal(login(local, ADDRESS, 'wrong'))
    await refusal(login(local, 'alice', 'wrong'))
    expect((await refusal(login(local, ADDRESS))).code).toBe('local.rate_limited')
    expect((await refusal(login(local, 'alice'))).code).toBe('local.rate_limited')
  })

  it('with the default (usernames only) a verified address is not a way in', async () => {
    const { local } = await fixture({ signInWith: ['username'] })
    expect((await refusal(login(local, ADDRESS))).code).toBe('local.invalid_credentials')
    expect((await login(local, 'alice')).accountId).toBeDefined()
  })

  it('with addresses only, a username is refused as input and a username shaped like an address finds nobody', async () => {
    const { local, accountId } = await fixture({ signInWith: ['email'] })
    expect((await login(local, ADDRESS)).accountId).toBe(accountId)
    expect(await refusal(login(local, 'alice'))).toMatchObject({
      code: 'email.invalid_address',
      errorClass: 'invalid-input',
    })
    await local.register({ username: 'dave@mail.example', password: PASSWORD })
    expect((await refusal(login(local, 'dave@mail.example'))).code).toBe('local.invalid_credentials')
  })

  it('a verified address wins over the same string as another account’s username', async () => {
    const { local, accountId } = await fixture()
    await local.register({ username: ADDRESS.toLowerCase(), password: 'another password entirely' })
    expect((await login(local, ADDRESS)).accountId).toBe(accountId)
  })

  it('refuses CR/LF in an address identifier as bad input, before any lookup', async () => {
    const { local, accounts } = await fixture({ signInWith: ['email'] })
    const seen = countingLookups(accounts)
    expect((await refusal(login(local, `${ADDRESS}\r\n`))).code).toBe('email.invalid_address')
    expect(seen.lookups).toEqual([])
  })

  it('refuses an empty signInWith at construction', async () => {
    await expect(localFixture({ signInWith: [] })).rejects.toMatchObject({ code: 'local.invalid_config' })
    await expect(localFixture({ signInWith: ['phone' as never] })).rejects.toMatchObject({
      code: 'local.invalid_config',
    })
  })
})
