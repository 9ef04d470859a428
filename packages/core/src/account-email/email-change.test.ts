import { describe, expect, it } from 'vitest'
import { emailWorld, PASSWORD } from '../../test/support/email-flows.js'
import { cookiePair, requestSource } from '../../test/support/local-accounts.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { SessionSignIn } from '../local-accounts/sign-in.js'

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isPortcullisError(error)) return error.code
    throw error
  }
  return 'no error'
}

async function world() {
  const w = await emailWorld()
  const live = async (signIn: SessionSignIn) => {
    const outcome = (await w.local.mechanisms[0]?.authenticate(
      requestSource({ cookie: cookiePair(signIn.setCookie) }),
    )) as AuthenticationOutcome
    return outcome.kind
  }
  const addresses = async () =>
    (await w.accounts.listEmailAddresses(w.accountId)).map(
      (each) => `${each.address}${each.primary ? ' primary' : ''}${each.verified ? ' verified' : ''}`,
    )
  const requestChange = async (newAddress: string) =>
    w.change.request({ session: w.session, stepUpToken: await w.stepUpToken(), newAddress })
  /** Alice completes the change from her own session with the mailed flow and `typed` code. */
  const complete = (flowId: string, typed: string) =>
    w.change.complete({
      session: w.session,
      flowId,
      code: typed,
      credentials: w.credentialsOf(w.signIn),
    })
  return { ...w, live, addresses, requestChange, complete }
}

describe('email change: the request', () => {
  it('needs an email-change step-up: without one nothing is written', async () => {
    const w = await world()
    expect(
      await code(w.change.request({ session: w.session, stepUpToken: 'x', newAddress: 'new@example.com' })),
    ).toBe('step-up.required')
    const otherPurpose = await w.stepUpToken('delete-account')
    expect(
      await code(
        w.change.request({ session: w.session, stepUpToken: otherPurpose, newAddress: 'new@example.com' }),
      ),
    ).toBe('step-up.required')
    expect(await w.messages()).toEqual([])
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
  })

  it('a change to a mistyped address changes nothing: the old address still signs in', async () => {
    const w = await world()
    await w.requestChange('alcie@exmaple.com')
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
    expect(await w.accounts.findAccountByVerifiedEmail('alcie@exmaple.com')).toBeNull()
    expect((await w.accounts.findAccountByVerifiedEmail('alice@example.com'))?.accountId).toBe(w.accountId)
    const signIn = await w.local.login(
      { username: 'alice@example.com', password: PASSWORD },
      { transport: 'session' },
    )
    expect(signIn.transport).toBe('session')
    expect(await w.live(w.signIn)).toBe('authenticated')
    // A sign-in code still goes to the old address, none to the typo.
    await w.signInCode.request({ address: 'alice@example.com', clientAddress: '192.0.2.1' })
    const sent = await w.lastOf('sign-in-code')
    expect(sent.message.to.address).toBe('alice@example.com')
  })

  it('mails the code to the new address and the undo link to the old one, built on the public origin', async () => {
    const w = await world()
    const requested = await w.requestChange('new@example.com')
    const verification = await w.lastOf('email-change-verification')
    expect(verification.message.to.address).toBe('new@example.com')
    expect(verification.flowId).toBe(requested.flowId)
    expect(verification.message.link?.startsWith('https://app.example/email/change/confirm?flow=')).toBe(true)
    expect(verification.code).toMatch(/^\d{6}$/)
    const notice = await w.lastOf('email-change-notice')
    expect(notice.message).toMatchObject({
      to: { address: 'alice@example.com' },
      newAddress: 'new@example.com',
      undoValidForDays: 7,
    })
    expect(notice.message.undoLink.startsWith('https://app.example/email/change/undo?flow=')).toBe(true)
    expect(notice.flowId).not.toBe(requested.flowId)
  })

  it('refuses the primary address itself before spending the step-up', async () => {
    const w = await world()
    const token = await w.stepUpToken()
    expect(
      await code(
        w.change.request({ session: w.session, stepUpToken: token, newAddress: ' alice@EXAMPLE.com ' }),
      ),
    ).toBe('account_email.same_address')
    await w.change.request({ session: w.session, stepUpToken: token, newAddress: 'new@example.com' })
  })
})

describe('email change: completing', () => {
  it('makes the new address the verified primary, tells the old one, and ends every other session', async () => {
    const w = await world()
    const other = (await w.local.login(
      { username: 'alice', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    await w.requestChange('new@example.com')
    const { flowId, code: typed } = await w.lastOf('email-change-verification')
    const done = await w.complete(flowId, typed)
    expect(done.address).toBe('new@example.com')
    expect(done.securityEpoch).toBe(2)
    expect(await w.addresses()).toEqual(['new@example.com primary verified', 'alice@example.com verified'])
    expect(await w.live(other)).not.toBe('authenticated')
    expect(await w.live(w.signIn)).not.toBe('authenticated')
    expect(done.session).toBeDefined()
    expect(await w.live(done.session as SessionSignIn)).toBe('authenticated')
    const changed = (await w.messages()).filter((message) => message.kind === 'security-notification')
    expect(changed).toMatchObject([
      {
        to: { address: 'alice@example.com' },
        change: { type: 'address-changed', address: 'new@example.com' },
      },
    ])
    expect(w.events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['email.change_requested', 'email.changed', 'epoch.bumped']),
    )
  })

  it("refuses the code with another account's session, and the code is spent", async () => {
    const w = await world()
    const { accountId: bobId } = await w.local.register({ username: 'bob', password: PASSWORD })
    const bob = (await w.local.login(
      { username: 'bob', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    await w.requestChange('new@example.com')
    const { flowId, code: typed } = await w.lastOf('email-change-verification')
    const bobSession = { accountId: bobId, securityEpoch: 1, sessionHandle: bob.handle }
    expect(
      await code(
        w.change.complete({ session: bobSession, flowId, code: typed, credentials: w.credentialsOf(bob) }),
      ),
    ).toBe('account_email.invalid_code')
    expect(await w.accounts.listEmailAddresses(bobId)).toEqual([])
    expect(await code(w.complete(flowId, typed))).toBe('account_email.invalid_code')
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
  })

  it('counts wrong codes and deletes the code at the attempt limit', async () => {
    const w = await world()
    await w.requestChange('new@example.com')
    const { flowId, code: right } = await w.lastOf('email-change-verification')
    const wrong = right === '000000' ? '111111' : '000000'
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await code(w.complete(flowId, wrong))).toBe('account_email.invalid_code')
    }
    expect(await code(w.complete(flowId, right))).toBe('account_email.invalid_code')
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
  })

  it('answers address_taken when another account verified the new address meanwhile; nothing changes', async () => {
    const w = await world()
    await w.requestChange('new@example.com')
    const { accountId: bobId } = await w.local.register({ username: 'bob', password: PASSWORD })
    const now = new Date(w.clock())
    await w.accounts.addEmailAddress({ accountId: bobId, address: 'new@example.com', now })
    await w.accounts.verifyEmailAddress({ accountId: bobId, address: 'new@example.com', now })
    const { flowId, code: typed } = await w.lastOf('email-change-verification')
    expect(await code(w.complete(flowId, typed))).toBe('account_email.address_taken')
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
  })
})

describe('email change: undo', () => {
  it('restores the old address after a completed change, removes the new one, works once', async () => {
    const w = await world()
    await w.requestChange('attacker@example.com')
    const undo = await w.lastOf('email-change-notice')
    const change = await w.lastOf('email-change-verification')
    const done = await w.complete(change.flowId, change.code)
    w.clock.advance(1000)
    expect(await w.change.undo({ flowId: undo.flowId, code: undo.code })).toEqual({
      address: 'alice@example.com',
    })
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
    expect((await w.accounts.getAccount(w.accountId))?.securityEpoch).toBeGreaterThan(done.securityEpoch)
    expect(await w.live(done.session as SessionSignIn)).not.toBe('authenticated')
    const told = (await w.messages()).filter((message) => message.kind === 'security-notification').at(-1)
    expect(told).toMatchObject({
      to: { address: 'alice@example.com' },
      change: { type: 'address-changed', address: 'alice@example.com' },
    })
    expect(await code(w.change.undo({ flowId: undo.flowId, code: undo.code }))).toBe(
      'account_email.invalid_code',
    )
  })

  it('before completion cancels the pending change: its code no longer works', async () => {
    const w = await world()
    await w.requestChange('new@example.com')
    const undo = await w.lastOf('email-change-notice')
    const change = await w.lastOf('email-change-verification')
    await w.change.undo({ flowId: undo.flowId, code: undo.code })
    expect(await code(w.complete(change.flowId, change.code))).toBe('account_email.invalid_code')
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
  })

  it('a later change (even from the new address) does not silence the first undo link', async () => {
    const w = await world()
    await w.requestChange('attacker@example.com')
    const firstUndo = await w.lastOf('email-change-notice')
    const change = await w.lastOf('email-change-verification')
    const done = await w.complete(change.flowId, change.code)
    const renewed = done.session as SessionSignIn
    w.clock.advance(1000)
    const session = {
      accountId: w.accountId,
      securityEpoch: done.securityEpoch,
      sessionHandle: renewed.handle,
    }
    await w.change.request({
      session,
      stepUpToken: await w.stepUpToken('email-change', session),
      newAddress: 'attacker2@example.com',
    })
    expect((await w.lastOf('email-change-notice')).message.to.address).toBe('attacker@example.com')
    await w.change.undo({ flowId: firstUndo.flowId, code: firstUndo.code })
    expect(await w.addresses()).toEqual(['alice@example.com primary verified'])
  })
})
