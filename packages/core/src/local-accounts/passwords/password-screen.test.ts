// The offline password screen (NIST SP 800-63B-4 §3.1.1.2): a blocklist it is given, compared after NFKC and
// case folding, the username and address rule, and the flows that set a password (sign-up, change, reset,
// the `screenPassword` hook) refusing with `local.password_screened` before anything is hashed or stored.
import { describe, expect, it } from 'vitest'
import { localFixture, TEST_COMMON_PASSWORDS } from '../../../test/support/local-accounts.js'
import { isPortcullisError } from '../../errors/portcullis-error.js'
import { blocklistPasswordScreen } from './blocklist-screen.js'
import type { PasswordScreen } from './password-screen.js'
import { refusedByContext } from './password-screen.js'

async function refusal(promise: Promise<unknown>): Promise<{ code: string; text: string } | 'accepted'> {
  try {
    await promise
  } catch (error) {
    if (!isPortcullisError(error)) throw error
    return { code: error.code, text: JSON.stringify(error) + String(error.message) + String(error.stack) }
  }
  return 'accepted'
}

const STRONG = 'a slow heron over the quarry'

describe('blocklistPasswordScreen', () => {
  const screen = blocklistPasswordScreen({ passwords: TEST_COMMON_PASSWORDS })

  it('needs its list: no list is local.invalid_config, never a screen that refuses nothing', () => {
    for (const options of [undefined, {}, { words: ['Portcullis'] }, { passwords: 'password' }])
      expect(() => blocklistPasswordScreen(options as never)).toThrow(
        expect.objectContaining({ code: 'local.invalid_config' }),
      )
    expect(() => blocklistPasswordScreen({ passwords: 7 } as never)).toThrow(/passwords/)
  })

  it('takes a list still loading: the first screen waits for it; the same list object is built once', async () => {
    let resolve: (list: readonly string[]) => void = () => undefined
    const loading = new Promise<readonly string[]>((done) => {
      resolve = done
    })
    const waiting = blocklistPasswordScreen({ passwords: loading })
    const verdict = waiting.screen('Hunter2hunter2', { purpose: 'sign-up' })
    resolve(['hunter2hunter2'])
    expect(await verdict).toEqual({ accepted: false, reason: 'common' })
    const failing = blocklistPasswordScreen({ passwords: Promise.reject(new Error('list gone')) })
    await expect(failing.screen('anything at all here', { purpose: 'sign-up' })).rejects.toThrow(/list gone/)
  })

  it('refuses a listed password in any case and in compatibility forms (NFKC)', async () => {
    for (const typed of ['password', 'PASSWORD', 'PassWord', 'ｐａｓｓｗｏｒｄ', 'iloveyou', 'Sunshine']) {
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

  it('refuses the username, its derivatives and the address, but not a passphrase that mentions it', async () => {
    const context = { purpose: 'change' as const, username: 'marguerite', addresses: ['m.quill@example.org'] }
    for (const typed of [
      'marguerite',
      'Marguerite2024!',
      'MARGUERITE!!',
      'm.quill@example.org',
      'm.quill12',
      'marguerite-password',
      '12345678marguerite',
    ])
      expect(await screen.screen(typed, context)).toEqual({ accepted: false, reason: 'context' })
    expect(await screen.screen('marguerite rides a red bicycle', context)).toEqual({ accepted: true })
    // A short username is refused as the whole password only.
    expect(refusedByContext('al', { purpose: 'sign-up', username: 'al' }, 8)).toBe(true)
    expect(refusedByContext('almond orchard path', { purpose: 'sign-up', username: 'al' }, 8)).toBe(false)
  })

  it('refuses words of the service and the passwords of a list of its own', async () => {
    const own = blocklistPasswordScreen({ words: ['Portcullis'], passwords: ['hunter22hunter'] })
    expect(await own.screen('portcullis', { purpose: 'sign-up' })).toEqual({
      accepted: false,
      reason: 'common',
    })
    expect(await own.screen('Portcullis2026', { purpose: 'sign-up' })).toEqual({
      accepted: false,
      reason: 'context',
    })
    expect(await own.screen('HUNTER22HUNTER', { purpose: 'sign-up' })).toEqual({
      accepted: false,
      reason: 'common',
    })
    expect(await own.screen('password', { purpose: 'sign-up' })).toEqual({ accepted: true })
    expect(() => blocklistPasswordScreen({ words: [''], passwords: [] })).toThrow(/non-empty/)
    expect(() => blocklistPasswordScreen({ minRemainingLength: 0, passwords: [] })).toThrow(/positive/)
  })
})

describe('screening in the local-accounts flows', () => {
  it('sign-up with a listed password is local.password_screened: nothing hashed or stored, nothing echoed', async () => {
    const { local, accounts, hasher } = await localFixture({ registration: 'open' })
    const answer = await refusal(local.register({ username: 'alice', password: 'Password1' }))
    expect(answer).not.toBe('accepted')
    if (answer === 'accepted') return
    expect(answer.code).toBe('local.password_screened')
    expect(answer.text.toLowerCase()).not.toContain('password1')
    expect(hasher.hashes).toBe(0)
    expect(await accounts.findPassword({ username: 'alice' })).toBeNull()
    const named = await refusal(local.register({ username: 'alice', password: 'alice2024!' }))
    expect(named !== 'accepted' && named.code).toBe('local.password_screened')
    await expect(local.register({ username: 'alice', password: STRONG })).resolves.toMatchObject({
      username: 'alice',
    })
  })

  it('a password change and a reset to a listed password are refused and change nothing', async () => {
    const { local, accounts } = await localFixture({ registration: 'open' })
    const { accountId } = await local.register({ username: 'bob', password: STRONG })
    const before = await accounts.findPassword({ accountId })
    const epoch = (await accounts.getAccount(accountId))?.securityEpoch
    const changed = await refusal(
      local.changePassword({
        accountId,
        body: { currentPassword: STRONG, newPassword: 'qwertyuiop' },
        credentials: {},
      }),
    )
    expect(changed !== 'accepted' && changed.code).toBe('local.password_screened')
    const reset = await refusal(local.resetPassword(accountId, 'bob12345678'))
    expect(reset !== 'accepted' && reset.code).toBe('local.password_screened')
    const after = await accounts.findPassword({ accountId })
    expect(after?.passwordHash).toBe(before?.passwordHash)
    expect((await accounts.getAccount(accountId))?.securityEpoch).toBe(epoch)
    expect(await local.resetPassword(accountId, 'an entirely fresh passphrase')).toBe(true)
  })

  it('uses the configured screen, with the purpose and username, and the hook for other flows', async () => {
    const seen: string[] = []
    const passwordScreen: PasswordScreen = {
      async screen(password, context) {
        seen.push(`${context.purpose}:${context.username ?? '-'}`)
        return password.includes('forbidden') ? { accepted: false, reason: 'breached' } : { accepted: true }
      },
    }
    const { local } = await localFixture({ registration: 'open', passwordScreen })
    expect(local.passwordScreen).toBe(passwordScreen)
    // The custom screen replaces the default: a listed password is its call.
    await local.register({ username: 'carol', password: 'password' })
    const refused = await refusal(local.register({ username: 'dave', password: 'a forbidden phrase' }))
    expect(refused !== 'accepted' && refused.code).toBe('local.password_screened')
    const hook = await refusal(local.screenPassword('forbidden too', { purpose: 'reset', username: 'carol' }))
    expect(hook !== 'accepted' && hook.code).toBe('local.password_screened')
    expect(seen).toEqual(['sign-up:carol', 'sign-up:dave', 'reset:carol'])
  })
})
