import { describe, expect, it } from 'vitest'
import type { SessionSignIn } from '../../src/local-accounts/sign-in.js'
import { MemoryStepUpStore } from '../../src/step-up/memory-store.js'
import { StepUpService } from '../../src/step-up/service.js'
import { accountEmailWorld, PASSWORD } from '../support/account-email-world.js'

const impersonator = Object.freeze({ accountId: 'the-admin', impersonationId: 'imp-4711' })
const marked = { actorId: 'the-admin', impersonationId: 'imp-4711' }

/** An account with a verified address and an added, unverified one (its flow and mailed code). */
async function world(fail = false) {
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  const w = await accountEmailWorld({
    email: {
      stepUp,
      ...(fail
        ? {
            addressVerified: {
              addressVerified: async () => {
                throw Object.assign(new Error('down'), { code: 'organizations.unavailable' })
              },
            },
          }
        : {}),
    },
  })
  const { accountId } = await w.verifiedAccount('ada@example.com')
  const signIn = (await w.local.login(
    { username: 'ada@example.com', password: PASSWORD },
    { transport: 'session' },
  )) as SessionSignIn
  const securityEpoch = (await w.accounts.getAccount(accountId))?.securityEpoch ?? 0
  const session = { accountId, securityEpoch, sessionHandle: signIn.handle }
  const stepUpToken = (
    await stepUp.issue({ accountId, purpose: 'email-change', securityEpoch, sessionBinding: signIn.handle })
  ).reveal()
  const added = await w.email.addAddress({
    session,
    stepUpToken,
    body: { email: 'ada@acme.example' },
    credentials: { sessionHandle: signIn.handle, securityEpoch },
  })
  const code = (await w.lastMail('verification', 'ada@acme.example'))?.code ?? ''
  const since = w.events.length
  const after = () => w.events.slice(since)
  return { ...w, accountId, session, flow: added.flow, code, after }
}

describe('address verification during an impersonation names the administrator', () => {
  it('email.verified of an impersonation carries actorId and impersonationId; the person’s own does not', async () => {
    const w = await world()
    await w.email.verifyEmail({ flow: w.flow, code: w.code }, { impersonator })
    expect(w.after().find((event) => event.type === 'email.verified')).toMatchObject({
      accountId: w.accountId,
      ...marked,
    })
    const own = await world()
    await own.email.verifyEmail({ flow: own.flow, code: own.code })
    const verified = own.after().find((event) => event.type === 'email.verified')
    expect(verified).toMatchObject({ accountId: own.accountId })
    expect(verified).not.toHaveProperty('actorId')
    expect(verified).not.toHaveProperty('impersonationId')
  })

  it('every refusal of an impersonation is marked: a wrong code, a forged flow, a replayed code', async () => {
    const w = await world()
    const wrong = w.code === '000000' ? '111111' : '000000'
    await expect(w.email.verifyEmail({ flow: w.flow, code: wrong }, { impersonator })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    await expect(
      w.email.verifyEmail({ flow: `${w.flow.slice(0, -4)}AAAA`, code: w.code }, { impersonator }),
    ).rejects.toMatchObject({ code: 'account_email.invalid_code' })
    await w.email.verifyEmail({ flow: w.flow, code: w.code })
    await expect(w.email.verifyEmail({ flow: w.flow, code: w.code }, { impersonator })).rejects.toMatchObject(
      {
        code: 'account_email.invalid_code',
      },
    )
    const failed = w.after().filter((event) => event.type === 'email.verification_failed')
    expect(failed).toHaveLength(3)
    for (const event of failed) expect(event).toMatchObject({ reason: 'invalid_code', ...marked })
    // The wrong code and the replay name the account the flow is for; the forged flow names none.
    expect(failed.map((event) => event.accountId)).toEqual([w.accountId, undefined, w.accountId])
  })

  it('a resend, on the flow or from the address page, and a failing listener are marked too', async () => {
    const w = await world(true)
    await w.email.resendVerification({ flow: w.flow }, { impersonator })
    await w.email.resendAddressVerification({
      session: w.session,
      body: { email: 'ada@acme.example' },
      request: { impersonator },
    })
    const sent = w.after().filter((event) => event.type === 'email.verification_sent')
    expect(sent).toHaveLength(2)
    for (const event of sent) expect(event).toMatchObject({ accountId: w.accountId, ...marked })
    const code = (await w.lastMail('verification', 'ada@acme.example'))?.code ?? ''
    const flow = (await w.email.resendVerification({ flow: w.flow })).flow
    const fresh = (await w.lastMail('verification', 'ada@acme.example'))?.code ?? code
    await w.email.verifyEmail({ flow, code: fresh }, { impersonator })
    expect(w.after().find((event) => event.type === 'email.address_verified_listener_failed')).toMatchObject({
      accountId: w.accountId,
      reason: 'organizations.unavailable',
      ...marked,
    })
    // The person's own resend names nobody.
    const own = w
      .after()
      .filter((event) => event.type === 'email.verification_sent')
      .at(-1)
    expect(own).not.toHaveProperty('actorId')
  })
})
