// The maintained list and the offline screen over it: tens of thousands of common passwords, loaded once
// per process, refused in any case or width, and around the account's own name.
import { blocklistPasswordScreen } from '@portcullis/core/local-accounts'
import { describe, expect, it } from 'vitest'
import { commonPasswordScreen } from './common-password-screen.js'
import { COMMON_PASSWORDS_SOURCE, commonPasswords } from './common-passwords.js'

const STRONG = 'a slow heron over the quarry'

describe('commonPasswords', () => {
  it('is tens of thousands of common passwords, the same frozen array on every call', async () => {
    const list = await commonPasswords()
    expect(list.length).toBe(49_233)
    expect(Object.isFrozen(list)).toBe(true)
    expect(await commonPasswords()).toBe(list)
    for (const common of ['password', '123456', 'qwerty', 'iloveyou', 'password1', 'sunshine'])
      expect(list).toContain(common)
    expect(list).not.toContain(STRONG)
    expect(COMMON_PASSWORDS_SOURCE).toBe('@zxcvbn-ts/language-common@4.1.3 passwords-common')
  })
})

describe('commonPasswordScreen', () => {
  const screen = commonPasswordScreen()

  it('refuses a listed password in any case and in compatibility forms (NFKC)', async () => {
    for (const typed of [
      'password',
      'PASSWORD',
      'PassWord',
      'ｐａｓｓｗｏｒｄ',
      'iloveyou',
      'Sunshine',
      'Password1',
    ]) {
      expect(await screen.screen(typed, { purpose: 'sign-up' })).toEqual({
        accepted: false,
        reason: 'common',
      })
    }
    expect(await screen.screen(STRONG, { purpose: 'sign-up' })).toEqual({ accepted: true })
    // Near misses are not on the list: the rule is the list, not a guess.
    expect(await screen.screen('password is not my password', { purpose: 'sign-up' })).toEqual({
      accepted: true,
    })
  })

  it('refuses a password of this list around the account name', async () => {
    const context = { purpose: 'change' as const, username: 'marguerite' }
    // Long enough to pass the length rule alone; refused because what is left is on this list.
    for (const typed of ['football-marguerite', 'superman!marguerite', 'Marguerite starwars'])
      expect(await screen.screen(typed, context)).toEqual({ accepted: false, reason: 'context' })
    expect(await screen.screen('marguerite rides a red bicycle', context)).toEqual({ accepted: true })
  })

  it('takes the words of the service and the remaining length, as blocklistPasswordScreen does', async () => {
    const own = commonPasswordScreen({ words: ['Portcullis'], minRemainingLength: 12 })
    expect(await own.screen('portcullis', { purpose: 'sign-up' })).toEqual({
      accepted: false,
      reason: 'common',
    })
    expect(await own.screen('Portcullis-a-heron', { purpose: 'sign-up' })).toEqual({
      accepted: false,
      reason: 'context',
    })
    expect(await own.screen('Portcullis and a slow heron', { purpose: 'sign-up' })).toEqual({
      accepted: true,
    })
    expect(() => commonPasswordScreen({ words: [''] })).toThrow(/non-empty/)
  })

  it('is the same list as blocklistPasswordScreen over commonPasswords(), built once for both', async () => {
    const direct = blocklistPasswordScreen({ passwords: commonPasswords() })
    for (const typed of ['letmein', 'dragon', 'monkey', STRONG])
      expect(await direct.screen(typed, { purpose: 'reset' })).toEqual(
        await screen.screen(typed, { purpose: 'reset' }),
      )
  })
})
