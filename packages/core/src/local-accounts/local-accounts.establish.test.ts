// Establishing a sign-in for an account authenticated some other way (a passkey, an OAuth login): the
// authentication methods it records, and the username the passkey and TOTP routes show.
import { describe, expect, it } from 'vitest'
import { localFixture } from '../../test/support/local-accounts.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { TokenSignIn } from './sign-in.js'

const credentials = { username: 'alice', password: 'correct horse battery staple' }

const claimsOf = (pair: TokenSignIn) =>
  JSON.parse(Buffer.from(pair.access_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    amr?: string[]
  }

describe('establishSignIn', () => {
  it('puts the given amr into the access token, and none when none is given', async () => {
    const { local } = await localFixture()
    const { accountId } = await local.register(credentials)
    const passkey = (await local.establishSignIn({
      accountId,
      transport: 'tokens',
      amr: ['hwk', 'user'],
    })) as TokenSignIn
    expect(claimsOf(passkey).amr).toEqual(['hwk', 'user'])
    const plain = (await local.establishSignIn({ accountId, transport: 'tokens' })) as TokenSignIn
    expect(claimsOf(plain).amr).toBeUndefined()
  })

  it('refuses an amr that is not a short list of lower-case names, before signing anything', async () => {
    const { local } = await localFixture()
    const { accountId } = await local.register(credentials)
    for (const amr of [[], ['HWK'], ['hwk', 1], 'hwk', Array.from({ length: 9 }, () => 'otp')]) {
      const refused = await local
        .establishSignIn({ accountId, transport: 'tokens', amr: amr as string[] })
        .then(
          () => undefined,
          (error: unknown) => error,
        )
      expect(isPortcullisError(refused) && refused.code).toBe('local.invalid_input')
    }
  })
})

describe('usernameOf', () => {
  it("answers the password's username, and undefined for an unknown account", async () => {
    const { local } = await localFixture()
    const { accountId } = await local.register(credentials)
    expect(await local.usernameOf(accountId)).toBe('alice')
    expect(await local.usernameOf('no-such-account')).toBeUndefined()
  })
})
