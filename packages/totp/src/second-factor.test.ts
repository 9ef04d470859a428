import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import type { SessionSignIn, TokenSignIn } from '@portcullis/core/local-accounts'
import { PendingSecondFactor } from '@portcullis/core/local-accounts'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { MemoryTotpStore, TotpSecondFactor } from '@portcullis/core/totp'
import { decodeJwt } from 'jose'
import { Secret } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { localFixture, testClock } from '../../core/test/support/local-accounts.js'
import { totpCodeAt } from './one-time-code.js'
import { TotpService } from './service.js'

const PASSWORD = 'correct horse battery'

async function twoStepFixture() {
  const clock = testClock()
  const pending = new MemoryStepUpStore()
  const totpStore = new MemoryTotpStore()
  const base = await localFixture({ clock })
  const totp = new TotpService({
    store: totpStore,
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
    rateLimits: base.rateLimits,
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis',
    clock,
  })
  const gate = new TotpSecondFactor({ totp, pending, clock })
  const fixture = await localFixture({
    clock,
    secondFactor: gate,
    accounts: base.accounts,
    rateLimits: base.rateLimits,
  })
  const { accountId } = await fixture.local.register({ username: 'alice', password: PASSWORD })
  const start = await totp.beginEnrollment({ accountId, label: 'alice' })
  const secret = Secret.fromBase32(start.revealSecret()).bytes
  const recoveryCodes = (
    await totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, clock()) })
  ).reveal()
  clock.advance(60_000)
  const code = () => totpCodeAt(secret, clock())
  const passwordStep = async (transport: 'session' | 'tokens' = 'session') => {
    const answer = await fixture.local.login({ username: 'alice', password: PASSWORD }, { transport })
    if (!(answer instanceof PendingSecondFactor)) throw new Error('no second factor was asked for')
    return answer
  }
  return { ...fixture, clock, accountId, totp, pending, code, recoveryCodes, passwordStep }
}

describe('password sign-in with TOTP enabled', () => {
  it('answers a pending second factor, not a session, and signs in once the code is right', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    expect(pendingSignIn.methods).toEqual(['totp', 'recovery_code'])
    expect(pendingSignIn.expiresAt.getTime() - f.clock()).toBe(300_000)
    expect(f.events.map((event) => event.type)).not.toContain('session.created')
    expect(f.events.at(-1)).toMatchObject({ type: 'second_factor.required', accountId: f.accountId })
    const signIn = (await f.local.completeSecondFactor({
      pendingToken: pendingSignIn.reveal(),
      code: f.code(),
    })) as SessionSignIn
    expect(signIn).toMatchObject({ transport: 'session', accountId: f.accountId })
    expect(f.events.map((event) => event.type).slice(-3)).toEqual([
      'second_factor.required',
      'login.succeeded',
      'session.created',
    ])
  })

  it('puts otp beside pwd in the amr of a token sign-in', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep('tokens')
    const pair = (await f.local.completeSecondFactor({
      pendingToken: pendingSignIn.reveal(),
      code: f.code(),
    })) as TokenSignIn
    expect(decodeJwt(pair.access_token).amr).toEqual(['pwd', 'otp'])
  })

  it('spends the pending token on success: presenting it again is refused', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    await f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code: f.code() })
    f.clock.advance(30_000)
    await expect(
      f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code: f.code() }),
    ).rejects.toMatchObject({ code: 'totp.pending_invalid' })
  })

  it('keeps the pending token after a wrong code, so a typo costs no password', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    await expect(
      f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code: '000000' }),
    ).rejects.toMatchObject({ code: 'totp.invalid_code' })
    await expect(
      f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code: f.code() }),
    ).resolves.toMatchObject({ transport: 'session' })
  })

  it('refuses the pending token once it expired', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    f.clock.advance(300_000)
    await expect(
      f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code: f.code() }),
    ).rejects.toMatchObject({ code: 'totp.pending_invalid' })
  })

  it('completes with a recovery code instead of a TOTP code, once', async () => {
    const f = await twoStepFixture()
    const recoveryCode = f.recoveryCodes[0]
    const first = await f.passwordStep()
    await f.local.completeSecondFactor({ pendingToken: first.reveal(), recoveryCode })
    const second = await f.passwordStep()
    await expect(
      f.local.completeSecondFactor({ pendingToken: second.reveal(), recoveryCode }),
    ).rejects.toMatchObject({ code: 'totp.invalid_recovery_code' })
  })

  it('lets exactly one of ten concurrent completions with one pending token sign in', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    const code = f.code()
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
  })

  it('refuses to finish when the security epoch moved between the two steps', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    await f.local.signOutEverywhere(f.accountId)
    await expect(
      f.local.completeSecondFactor({ pendingToken: pendingSignIn.reveal(), code: f.code() }),
    ).rejects.toMatchObject({ code: 'local.sign_in_required' })
  })

  it('a pending token never passes as a step-up credential', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    const result = await new StepUpService({ store: f.pending, clock: () => new Date(f.clock()) }).consume({
      token: pendingSignIn.reveal(),
      accountId: f.accountId,
      purpose: 'portcullis.second-factor.session',
      securityEpoch: 1,
      sessionBinding: 'session:any',
    })
    expect(result.kind).toBe('rejected')
  })

  it('refuses forged and malformed second steps without touching the store', async () => {
    const f = await twoStepFixture()
    for (const body of [
      { pendingToken: 'x'.repeat(43), code: f.code() },
      { pendingToken: randomBytes(32).toString('base64url'), recoveryCode: f.recoveryCodes[1] },
    ]) {
      await expect(f.local.completeSecondFactor(body)).rejects.toMatchObject({ code: 'totp.pending_invalid' })
    }
    for (const body of [
      { pendingToken: 'abc' },
      { pendingToken: 'abc', code: '1', recoveryCode: '2' },
      'text',
    ]) {
      await expect(f.local.completeSecondFactor(body)).rejects.toMatchObject({
        code: 'local.invalid_request',
      })
    }
  })

  it('signs an account without TOTP in at once', async () => {
    const f = await twoStepFixture()
    await f.local.register({ username: 'bob', password: PASSWORD })
    const signIn = await f.local.login({ username: 'bob', password: PASSWORD }, { transport: 'session' })
    expect(signIn.transport).toBe('session')
  })

  it('never shows the pending token in inspect, JSON or String output', async () => {
    const f = await twoStepFixture()
    const pendingSignIn = await f.passwordStep()
    for (const shown of [
      inspect(pendingSignIn),
      JSON.stringify(pendingSignIn),
      String(pendingSignIn),
      inspect(f.events),
    ]) {
      expect(shown).not.toContain(pendingSignIn.reveal())
    }
  })
})
