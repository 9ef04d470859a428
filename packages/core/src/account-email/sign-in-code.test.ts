import { describe, expect, it } from 'vitest'
import { emailWorld } from '../../test/support/email-flows.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { PendingSecondFactor } from '../local-accounts/second-factor.js'
import type { SessionSignIn } from '../local-accounts/sign-in.js'
import { MemoryStepUpStore } from '../step-up/memory-store.js'
import type { TotpFactor } from '../totp/factor.js'
import { TotpSecondFactor } from '../totp/second-factor.js'

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isPortcullisError(error)) return error.code
    throw error
  }
  return 'no error'
}

const CLIENT = '192.0.2.10'

describe('sign-in by email code', () => {
  it('is off unless the application turns it on', async () => {
    const w = await emailWorld({ signInCode: { enabled: false } })
    expect(await code(w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT }))).toBe(
      'account_email.sign_in_code_disabled',
    )
    expect(await code(w.signInCode.complete({ flowId: 'x'.repeat(22), code: '123456' }))).toBe(
      'account_email.sign_in_code_disabled',
    )
  })

  it('answers a known and an unknown address alike, and mails only the known one', async () => {
    const w = await emailWorld()
    const known = await w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT })
    const unknown = await w.signInCode.request({ address: 'nobody@example.com', clientAddress: CLIENT })
    expect(Object.keys(known)).toEqual(Object.keys(unknown))
    expect(known.flowId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(unknown.flowId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(known.expiresAt).toEqual(unknown.expiresAt)
    const mailed = (await w.messages()).filter((message) => message.kind === 'sign-in-code')
    expect(mailed.map((message) => message.to.address)).toEqual(['alice@example.com'])
    // An unverified address of an account is as unknown as any other.
    const now = new Date(w.clock())
    await w.accounts.addEmailAddress({ accountId: w.accountId, address: 'second@example.com', now })
    await w.signInCode.request({ address: 'second@example.com', clientAddress: CLIENT })
    expect((await w.messages()).filter((message) => message.kind === 'sign-in-code')).toHaveLength(1)
  })

  it('signs in once with the code; a replay, another code or an expired code is refused', async () => {
    const w = await emailWorld()
    await w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT })
    const sent = await w.lastOf('sign-in-code')
    expect(sent.message.validForMinutes).toBe(10)
    expect(sent.message.link?.startsWith('https://app.example/sign-in/code?flow=')).toBe(true)
    const signIn = await w.signInCode.complete({
      flowId: sent.flowId,
      code: sent.code,
      options: { transport: 'session' },
    })
    expect(signIn.transport).toBe('session')
    expect((signIn as SessionSignIn).accountId).toBe(w.accountId)
    expect(
      await code(
        w.signInCode.complete({ flowId: sent.flowId, code: sent.code, options: { transport: 'session' } }),
      ),
    ).toBe('account_email.invalid_code')

    w.clock.advance(1000)
    await w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT })
    const late = await w.lastOf('sign-in-code')
    w.clock.advance(10 * 60 * 1000 + 1)
    expect(
      await code(
        w.signInCode.complete({ flowId: late.flowId, code: late.code, options: { transport: 'session' } }),
      ),
    ).toBe('account_email.invalid_code')
  })

  it('deletes the code after the attempt limit: the right code then fails too', async () => {
    const w = await emailWorld()
    await w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT })
    const sent = await w.lastOf('sign-in-code')
    const wrong = sent.code === '000000' ? '111111' : '000000'
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await code(w.signInCode.complete({ flowId: sent.flowId, code: wrong }))).toBe(
        'account_email.invalid_code',
      )
    }
    expect(
      await code(
        w.signInCode.complete({ flowId: sent.flowId, code: sent.code, options: { transport: 'session' } }),
      ),
    ).toBe('account_email.invalid_code')
  })

  it('limits requests per address (known or not) and per client', async () => {
    const w = await emailWorld()
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await w.signInCode.request({ address: 'nobody@example.com', clientAddress: `192.0.2.${attempt}` })
    }
    const limited = await w.signInCode
      .request({ address: 'nobody@example.com', clientAddress: '192.0.2.99' })
      .catch((error: unknown) => error)
    expect(isPortcullisError(limited) && limited.code).toBe('account_email.rate_limited')
    expect((limited as { retryAfterSeconds?: number }).retryAfterSeconds).toBeGreaterThan(0)
  })

  it('a code no longer works once its address stopped being verified on the account', async () => {
    const w = await emailWorld()
    await w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT })
    const sent = await w.lastOf('sign-in-code')
    await w.accounts.removeEmailAddress({
      accountId: w.accountId,
      address: 'alice@example.com',
      now: new Date(w.clock()),
    })
    expect(
      await code(
        w.signInCode.complete({ flowId: sent.flowId, code: sent.code, options: { transport: 'session' } }),
      ),
    ).toBe('account_email.invalid_code')
  })

  it('asks an account with a second factor for it, as a password sign-in does', async () => {
    const enabled: Partial<TotpFactor> = { isEnabled: async () => true }
    const secondFactor = new TotpSecondFactor({
      totp: enabled as TotpFactor,
      pending: new MemoryStepUpStore(),
    })
    const w = await emailWorld({ local: { secondFactor } })
    await w.signInCode.request({ address: 'alice@example.com', clientAddress: CLIENT })
    const sent = await w.lastOf('sign-in-code')
    const answer = await w.signInCode.complete({
      flowId: sent.flowId,
      code: sent.code,
      options: { transport: 'session' },
    })
    expect(answer).toBeInstanceOf(PendingSecondFactor)
    expect(w.events.map((event) => event.type)).toContain('second_factor.required')
    expect(w.events.map((event) => event.type)).not.toContain('session.created')
  })
})
