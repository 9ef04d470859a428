import { describe, expect, it } from 'vitest'
import type { AddressVerifiedEvent } from '../../src/account-email/address-verified.js'
import type { SessionSignIn } from '../../src/local-accounts/sign-in.js'
import type { MailMessage } from '../../src/mail/messages.js'
import { MemoryStepUpStore } from '../../src/step-up/memory-store.js'
import { StepUpService } from '../../src/step-up/service.js'
import { accountEmailWorld, PASSWORD } from '../support/account-email-world.js'

/** A world whose `addressVerified` listener records each call, or fails with `fail` when it is set. */
async function world(fail?: () => unknown) {
  const calls: AddressVerifiedEvent[] = []
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  const w = await accountEmailWorld({
    email: {
      stepUp,
      addressVerified: {
        addressVerified: async (event) => {
          calls.push({ ...event })
          if (fail !== undefined) throw fail()
        },
      },
    },
  })
  const linkOf = (message: MailMessage | undefined) => {
    const link =
      message === undefined
        ? undefined
        : 'undoLink' in message
          ? message.undoLink
          : 'link' in message
            ? message.link
            : undefined
    const url = new URL(link ?? 'https://x/')
    return {
      flow: url.searchParams.get('flow') ?? '',
      code: new URLSearchParams(url.hash.slice(1)).get('code') ?? '',
    }
  }
  /** Signs the account in by its verified address and answers what the stepped-up requests take. */
  const signedIn = async (accountId: string, address: string) => {
    const signIn = (await w.local.login(
      { username: address, password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    const epoch = async () => (await w.accounts.getAccount(accountId))?.securityEpoch ?? 0
    const session = async () => ({ accountId, securityEpoch: await epoch(), sessionHandle: signIn.handle })
    const credentials = async () => ({ sessionHandle: signIn.handle, securityEpoch: await epoch() })
    const stepUpToken = async () =>
      (
        await stepUp.issue({
          accountId,
          purpose: 'email-change',
          securityEpoch: await epoch(),
          sessionBinding: signIn.handle,
        })
      ).reveal()
    return { session, credentials, stepUpToken }
  }
  const failures = () => w.events.filter((event) => event.type === 'email.address_verified_listener_failed')
  return { ...w, calls, linkOf, signedIn, failures }
}

describe('AccountEmail addressVerified: told once per verified address, after the commit', () => {
  it('the sign-up verification tells it once; a wrong code, a replayed code and a taken address do not', async () => {
    const w = await world()
    const { flow } = await w.email.signUp({ email: 'ada@example.com', password: PASSWORD })
    expect(w.calls).toEqual([])
    const sent = await w.lastMail('verification', 'ada@example.com')
    const code = sent?.code ?? ''
    const wrong = code === '000000' ? '111111' : '000000'
    await expect(w.email.verifyEmail({ flow, code: wrong })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    expect(w.calls).toEqual([])
    const { accountId } = await w.email.verifyEmail({ flow, code })
    // Told after the address is stored verified: the listener reads it back verified.
    expect(w.calls).toEqual([{ accountId, address: 'ada@example.com' }])
    const held = await w.accounts.listEmailAddresses(accountId)
    expect(held.find((each) => each.address === 'ada@example.com')?.verified).toBe(true)
    await expect(w.email.verifyEmail({ flow, code })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    // Signing up again with the verified address makes no account and verifies nothing.
    await w.email.signUp({ email: 'ada@example.com', password: PASSWORD })
    expect(w.calls).toHaveLength(1)
  })

  it('an added address tells it once when its code is used, not when it is added', async () => {
    const w = await world()
    const { accountId } = await w.verifiedAccount('ada@example.com')
    const me = await w.signedIn(accountId, 'ada@example.com')
    const added = await w.email.addAddress({
      session: await me.session(),
      stepUpToken: await me.stepUpToken(),
      body: { email: 'ada@acme.example' },
      credentials: await me.credentials(),
    })
    expect(w.calls.map((call) => call.address)).toEqual(['ada@example.com'])
    const sent = await w.lastMail('verification', 'ada@acme.example')
    await w.email.verifyEmail({ flow: added.flow, code: sent?.code ?? '' })
    expect(w.calls).toEqual([
      { accountId, address: 'ada@example.com' },
      { accountId, address: 'ada@acme.example' },
    ])
  })

  it('a completed email change tells it once with the new address; the request and the undo do not', async () => {
    const w = await world()
    const { accountId } = await w.verifiedAccount('ada@example.com')
    const me = await w.signedIn(accountId, 'ada@example.com')
    await w.email.requestEmailChange({
      session: await me.session(),
      stepUpToken: await me.stepUpToken(),
      body: { email: 'ada@acme.example' },
    })
    expect(w.calls).toHaveLength(1)
    const sent = w.linkOf(await w.lastMail('email-change-verification', 'ada@acme.example'))
    const done = await w.email.completeEmailChange({
      session: await me.session(),
      body: sent,
      credentials: await me.credentials(),
    })
    expect(done.address).toBe('ada@acme.example')
    expect(w.calls).toEqual([
      { accountId, address: 'ada@example.com' },
      { accountId, address: 'ada@acme.example' },
    ])
    const undo = w.linkOf(await w.lastMail('email-change-notice', 'ada@example.com'))
    await w.email.undoEmailChange(undo)
    expect(w.calls).toHaveLength(2)
  })

  it('a failing listener never fails or undoes the verification: it is reported by its code, no address or message', async () => {
    const secret = 'sk_live_do-not-log-me'
    const failing = Object.assign(new Error(`store said ${secret}`), { code: 'organizations.unavailable' })
    const w = await world(() => failing)
    const { accountId } = await w.verifiedAccount('ada@acme.example')
    expect(w.calls).toHaveLength(1)
    const held = await w.accounts.listEmailAddresses(accountId)
    expect(held.map((each) => [each.address, each.verified])).toEqual([['ada@acme.example', true]])
    expect(w.events.some((event) => event.type === 'email.verified')).toBe(true)
    expect(w.failures()).toEqual([
      expect.objectContaining({
        type: 'email.address_verified_listener_failed',
        accountId,
        reason: 'organizations.unavailable',
      }),
    ])
    const logged = JSON.stringify(w.failures())
    expect(logged).not.toContain(secret)
    expect(logged).not.toContain('ada@acme.example')
  })

  it('a thrown value without a stable code is reported as unknown', async () => {
    const w = await world(() => new Error('Boom: ada@acme.example at host db-1'))
    const { accountId } = await w.verifiedAccount('ada@acme.example')
    expect(w.failures()).toEqual([
      expect.objectContaining({
        type: 'email.address_verified_listener_failed',
        accountId,
        reason: 'unknown',
      }),
    ])
    expect(JSON.stringify(w.failures())).not.toContain('db-1')
    const odd = await world(() => ({ code: 'Not A Code <script>' }))
    await odd.verifiedAccount('bob@acme.example')
    expect(odd.failures().map((event) => (event as { reason?: string }).reason)).toEqual(['unknown'])
  })

  it('refuses a listener without an addressVerified method', async () => {
    await expect(accountEmailWorld({ email: { addressVerified: {} as never } })).rejects.toMatchObject({
      code: 'account_email.invalid_config',
    })
  })
})
