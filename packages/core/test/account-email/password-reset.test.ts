import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MemoryStepUpStore } from '../../src/step-up/memory-store.js'
import type { TotpFactor } from '../../src/totp/factor.js'
import { TotpSecondFactor } from '../../src/totp/second-factor.js'
import { accountEmailWorld, NEW_PASSWORD, PASSWORD } from '../support/account-email-world.js'

/** TOTP for a unit test: one account has it, and `123456` is its code. */
function oneTotpAccount() {
  const state = { accountId: '' }
  const factor = {
    isEnabled: async (accountId: string) => accountId === state.accountId,
    verify: async ({ code }: { code: unknown }) => {
      if (code !== '123456') throw Object.assign(new Error('wrong'), { code: 'totp.invalid_code' })
    },
    redeemRecoveryCode: async () => 9,
  } as unknown as TotpFactor
  return { state, gate: new TotpSecondFactor({ totp: factor, pending: new MemoryStepUpStore() }) }
}

async function resetCodeOf(world: Awaited<ReturnType<typeof accountEmailWorld>>, address: string) {
  const { flow } = await world.email.requestPasswordReset({ email: address })
  const message = await world.lastMail('password-reset', address)
  return { flow, code: message?.code as string, link: message?.link as string }
}

describe('password reset', () => {
  it('answers known and unknown addresses alike; the unknown one gets an unknown-account-reset message, or nothing when silent', async () => {
    const world = await accountEmailWorld()
    await world.verifiedAccount('amy@example.com')
    const known = await world.email.requestPasswordReset({ email: 'amy@example.com' })
    const unknown = await world.email.requestPasswordReset({ email: 'nobody@example.com' })
    expect(Object.keys(known)).toEqual(Object.keys(unknown))
    expect(known.flow.length).toBe(unknown.flow.length)
    const kinds = (await world.mail()).map((message) => [message.kind, message.to.address])
    expect(kinds).toContainEqual(['password-reset', 'amy@example.com'])
    expect(kinds).toContainEqual(['unknown-account-reset', 'nobody@example.com'])

    const silent = await accountEmailWorld({ email: { passwordReset: { unknownAddress: 'silent' } } })
    await silent.email.requestPasswordReset({ email: 'nobody@example.com' })
    expect(await silent.mail()).toEqual([])
  })

  it('builds the link from the public origin: /reset-password?flow=...#code=...', async () => {
    const world = await accountEmailWorld()
    await world.verifiedAccount('bea@example.com')
    const { flow, code, link } = await resetCodeOf(world, 'bea@example.com')
    const url = new URL(link)
    expect(url.origin).toBe('https://app.example')
    expect(url.pathname).toBe('/reset-password')
    expect(url.searchParams.get('flow')).toBe(flow)
    expect(new URLSearchParams(url.hash.slice(1)).get('code')).toBe(code)
  })

  it('sets the new password, moves the epoch (the old session is refused), notifies, revokes the other reset codes and does not sign in', async () => {
    const world = await accountEmailWorld()
    const { accountId } = await world.verifiedAccount('cy@example.com')
    await world.local.login({ username: 'cy@example.com', password: PASSWORD }, { transport: 'session' })
    const live = () => world.sessions.list({ accountId, now: new Date(world.clock()) })
    expect(await live()).toHaveLength(1)
    const before = (await world.accounts.getAccount(accountId))?.securityEpoch ?? 0
    const first = await resetCodeOf(world, 'cy@example.com')
    const other = await resetCodeOf(world, 'cy@example.com')
    // the newest code supersedes the first
    await expect(
      world.email.resetPassword({ flow: first.flow, code: first.code, password: NEW_PASSWORD }),
    ).rejects.toMatchObject({ code: 'account_email.invalid_code' })
    const done = await world.email.resetPassword({
      flow: other.flow,
      code: other.code,
      password: NEW_PASSWORD,
    })
    expect(done).toEqual({ outcome: 'reset', accountId })
    expect((await world.accounts.getAccount(accountId))?.securityEpoch).toBe(before + 1)
    expect(await live()).toHaveLength(0)
    await expect(
      world.local.login({ username: 'cy@example.com', password: PASSWORD }, { transport: 'session' }),
    ).rejects.toMatchObject({ code: 'local.invalid_credentials' })
    await world.local.login({ username: 'cy@example.com', password: NEW_PASSWORD }, { transport: 'session' })
    const notice = await world.lastMail('security-notification', 'cy@example.com')
    expect(notice?.change).toEqual({ type: 'password-reset' })
    // replay
    await expect(
      world.email.resetPassword({ flow: other.flow, code: other.code, password: 'yet another passphrase' }),
    ).rejects.toMatchObject({ code: 'account_email.invalid_code' })
    const types = world.events.map((event) => event.type)
    expect(types).toEqual(
      expect.arrayContaining(['password_reset.requested', 'epoch.bumped', 'password_reset.completed']),
    )
  })

  it('respects the opt-out of password notifications', async () => {
    const world = await accountEmailWorld()
    const { accountId } = await world.verifiedAccount('dee@example.com')
    await world.notificationSettings.setOptOuts({ accountId, optOuts: ['password-reset'], now: new Date() })
    const { flow, code } = await resetCodeOf(world, 'dee@example.com')
    await world.email.resetPassword({ flow, code, password: NEW_PASSWORD })
    expect(await world.lastMail('security-notification', 'dee@example.com')).toBeUndefined()
  })

  it('does not spend the code on a password the screen refuses', async () => {
    const world = await accountEmailWorld()
    await world.verifiedAccount('eve@example.com')
    const { flow, code } = await resetCodeOf(world, 'eve@example.com')
    await expect(world.email.resetPassword({ flow, code, password: 'password1' })).rejects.toMatchObject({
      code: 'local.password_screened',
    })
    await world.email.resetPassword({ flow, code, password: NEW_PASSWORD })
  })

  it('counts wrong codes and deletes the code at the limit; an expired code (1 h) is refused', async () => {
    const world = await accountEmailWorld({ email: { maxAttempts: 2 } })
    await world.verifiedAccount('fay@example.com')
    const { flow, code } = await resetCodeOf(world, 'fay@example.com')
    for (const wrong of ['000000', '999999'].filter((guess) => guess !== code)) {
      await expect(
        world.email.resetPassword({ flow, code: wrong, password: NEW_PASSWORD }),
      ).rejects.toMatchObject({
        code: 'account_email.invalid_code',
      })
    }
    await expect(world.email.resetPassword({ flow, code, password: NEW_PASSWORD })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    const late = await resetCodeOf(world, 'fay@example.com')
    world.clock.advance(3600 * 1000 + 1)
    await expect(
      world.email.resetPassword({ flow: late.flow, code: late.code, password: NEW_PASSWORD }),
    ).rejects.toMatchObject({ code: 'account_email.invalid_code' })
  })

  it('an unknown address record unlocks nothing, whatever code is tried', async () => {
    const world = await accountEmailWorld()
    const { flow } = await world.email.requestPasswordReset({ email: 'ghost@example.com' })
    await expect(
      world.email.resetPassword({ flow, code: '123456', password: NEW_PASSWORD }),
    ).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
  })

  it('needs the TOTP code of a protected account before the password changes; without it nothing changes', async () => {
    const totp = oneTotpAccount()
    const world = await accountEmailWorld({
      local: { secondFactor: totp.gate },
      email: { secondFactor: totp.gate },
    })
    const { accountId } = await world.verifiedAccount('gus@example.com')
    totp.state.accountId = accountId
    const { flow, code } = await resetCodeOf(world, 'gus@example.com')
    const step = await world.email.resetPassword({ flow, code, password: NEW_PASSWORD })
    if (step.outcome !== 'second-factor') throw new Error('no second factor asked for')
    const pendingToken = step.pending.reveal()
    // the tokens never show in a log line of the result
    const logged = `${JSON.stringify(step)} ${inspect(step)}`
    expect(logged).not.toContain(pendingToken)
    expect(logged).not.toContain(step.revealResetToken().split('.')[1])
    // nothing changed yet: the old password still signs in (to the second step)
    const login = await world.local.login(
      { username: 'gus@example.com', password: PASSWORD },
      { transport: 'session' },
    )
    expect(login).toHaveProperty('methods')
    await expect(
      world.email.completeResetSecondFactor({
        resetToken: step.revealResetToken(),
        pendingToken,
        code: '000000',
      }),
    ).rejects.toMatchObject({ code: 'totp.invalid_code' })
    // a forged reset token does not finish it
    const [id] = step.revealResetToken().split('.')
    await expect(
      world.email.completeResetSecondFactor({
        resetToken: `${id}.WRONGWRONGWRONGWRONGWRONGWRONG22`,
        pendingToken,
        code: '123456',
      }),
    ).rejects.toMatchObject({ code: 'account_email.reset_pending_invalid' })
  })

  it('resets a TOTP account once its code is presented, and signs in only when configured', async () => {
    for (const signIn of ['never', 'after-second-factor'] as const) {
      const totp = oneTotpAccount()
      const world = await accountEmailWorld({
        local: { secondFactor: totp.gate },
        email: { secondFactor: totp.gate, passwordReset: { signIn } },
      })
      const { accountId } = await world.verifiedAccount('hana@example.com')
      totp.state.accountId = accountId
      const { flow, code } = await resetCodeOf(world, 'hana@example.com')
      const step = await world.email.resetPassword(
        { flow, code, password: NEW_PASSWORD },
        { transport: 'session' },
      )
      if (step.outcome !== 'second-factor') throw new Error('no second factor asked for')
      const done = await world.email.completeResetSecondFactor(
        { resetToken: step.revealResetToken(), pendingToken: step.pending.reveal(), code: '123456' },
        { transport: 'session' },
      )
      expect(done.accountId).toBe(accountId)
      expect(done.signIn === undefined).toBe(signIn === 'never')
      const next = await world.local.login(
        { username: 'hana@example.com', password: NEW_PASSWORD },
        { transport: 'session' },
      )
      expect(next).toHaveProperty('methods')
    }
  })

  it('refuses an account with a passkey: email alone never takes it over', async () => {
    const world = await accountEmailWorld()
    const { accountId } = await world.verifiedAccount('ida@example.com')
    const methods = world.accounts.listSignInMethods.bind(world.accounts)
    world.accounts.listSignInMethods = async (id: string) => [
      ...(await methods(id)),
      {
        kind: 'passkey',
        accountId,
        credentialId: 'cred',
        name: 'Laptop',
        createdAt: new Date(),
        lastUsedAt: null,
      },
    ]
    const { flow, code } = await resetCodeOf(world, 'ida@example.com')
    await expect(world.email.resetPassword({ flow, code, password: NEW_PASSWORD })).rejects.toMatchObject({
      code: 'account_email.second_factor_required',
    })
    await world.local.login({ username: 'ida@example.com', password: PASSWORD }, { transport: 'session' })
  })
})
