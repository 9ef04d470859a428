import { randomBytes } from 'node:crypto'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore, PasskeyStepUp } from '@portcullis/core/passkeys'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { describe, expect, it } from 'vitest'
// By path, not as a package: @portcullis/conformance depends on this package (its adapter cases run the
// real ceremonies), so a dependency back would be a workspace circle.
import { SoftwareAuthenticator } from '../../conformance/src/webauthn/software-authenticator.js'
import { PasskeyService } from './service.js'

const RP_ID = 'app.example'
const ORIGIN = 'https://app.example'
const session = { accountId: 'alice', securityEpoch: 3, sessionHandle: 'session:alice-1' }

function fixture() {
  const passkeys = new PasskeyService({
    rpId: RP_ID,
    rpName: 'Portcullis',
    origins: [ORIGIN],
    passkeys: new MemoryPasskeyStore(),
    challenges: new MemoryPasskeyChallengeStore(),
    pepper: randomBytes(32),
  })
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  return { passkeys, stepUp, passkeyStepUp: new PasskeyStepUp({ passkeys, stepUp }) }
}

async function register(f: ReturnType<typeof fixture>, accountId: string): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
  const binding = `session:${accountId}-1`
  const start = await f.passkeys.beginRegistration({
    accountId,
    userName: accountId,
    sessionBinding: binding,
  })
  await f.passkeys.finishRegistration({
    accountId,
    sessionBinding: binding,
    browserBinding: start.revealBrowserBinding(),
    response: authenticator.register(start.options),
    name: 'Laptop',
  })
  return authenticator
}

const consume = (f: ReturnType<typeof fixture>, token: string, purpose: string) =>
  f.stepUp.consume({
    token,
    accountId: session.accountId,
    purpose,
    securityEpoch: session.securityEpoch,
    sessionBinding: session.sessionHandle,
  })

describe('passkey step-up', () => {
  it('earns a one-use step-up credential of the purpose, bound to the session and epoch', async () => {
    const f = fixture()
    const authenticator = await register(f, 'alice')
    const start = await f.passkeyStepUp.begin({ session, purpose: 'delete-account' })
    const credential = await f.passkeyStepUp.finish({
      session,
      purpose: 'delete-account',
      browserBinding: start.revealBrowserBinding(),
      response: authenticator.assert(start.options),
    })
    expect(credential.purpose).toBe('delete-account')
    expect((await consume(f, credential.reveal(), 'password-remove')).kind).toBe('rejected')
    const other = await f.passkeyStepUp.begin({ session, purpose: 'delete-account' })
    const second = await f.passkeyStepUp.finish({
      session,
      purpose: 'delete-account',
      browserBinding: other.revealBrowserBinding(),
      response: authenticator.assert(other.options),
    })
    expect((await consume(f, second.reveal(), 'delete-account')).kind).toBe('consumed')
    expect((await consume(f, second.reveal(), 'delete-account')).kind).toBe('rejected')
  })

  it("refuses another account's passkey and issues nothing", async () => {
    const f = fixture()
    await register(f, 'alice')
    const mallory = await register(f, 'mallory')
    const start = await f.passkeyStepUp.begin({ session, purpose: 'delete-account' })
    await expect(
      f.passkeyStepUp.finish({
        session,
        purpose: 'delete-account',
        browserBinding: start.revealBrowserBinding(),
        response: mallory.assert(start.options),
      }),
    ).rejects.toMatchObject({ code: 'passkey.verification_failed' })
  })

  it('refuses a challenge begun for another purpose or session', async () => {
    const f = fixture()
    const authenticator = await register(f, 'alice')
    for (const wrong of [
      { purpose: 'payments.approve' },
      { session: { ...session, sessionHandle: 'session:x' } },
    ]) {
      const start = await f.passkeyStepUp.begin({ session, purpose: 'delete-account' })
      await expect(
        f.passkeyStepUp.finish({
          session,
          purpose: 'delete-account',
          ...wrong,
          browserBinding: start.revealBrowserBinding(),
          response: authenticator.assert(start.options),
        }),
      ).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
    }
  })

  it('refuses a malformed purpose before any ceremony starts', async () => {
    const f = fixture()
    await expect(f.passkeyStepUp.begin({ session, purpose: '../admin' })).rejects.toMatchObject({
      code: 'step-up.invalid_input',
    })
  })
})
