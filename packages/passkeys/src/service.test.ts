import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { beforeEach, describe, expect, it } from 'vitest'
// By path, not as a package: @portcullis/conformance depends on this package (its adapter cases run the
// real ceremonies), so a dependency back would be a workspace circle.
import { SoftwareAuthenticator } from '../../conformance/src/webauthn/software-authenticator.js'
import { PasskeyService } from './service.js'

const RP_ID = 'app.example'
const ORIGIN = 'https://app.example'
const SESSION = 'session:handle-1'

function fixture() {
  const events: SecurityEvent[] = []
  const passkeys = new MemoryPasskeyStore()
  const challenges = new MemoryPasskeyChallengeStore()
  const clock = { now: Date.UTC(2031, 2, 4, 5, 6, 7) }
  const service = new PasskeyService({
    rpId: RP_ID,
    rpName: 'Portcullis',
    origins: [ORIGIN],
    passkeys,
    challenges,
    pepper: randomBytes(32),
    clock: () => clock.now,
    events: (event) => {
      events.push(event)
    },
  })
  return { service, passkeys, challenges, events, clock }
}

type Fixture = ReturnType<typeof fixture>

async function register(f: Fixture, authenticator: SoftwareAuthenticator, accountId = 'alice') {
  const start = await f.service.beginRegistration({ accountId, userName: accountId, sessionBinding: SESSION })
  const response = authenticator.register(start.options)
  return f.service.finishRegistration({
    accountId,
    sessionBinding: SESSION,
    browserBinding: start.revealBrowserBinding(),
    response,
    name: 'Laptop',
  })
}

async function signIn(f: Fixture, authenticator: SoftwareAuthenticator, overrides = {}) {
  const start = await f.service.beginAuthentication()
  return f.service.finishAuthentication({
    browserBinding: start.revealBrowserBinding(),
    response: authenticator.assert(start.options, overrides),
  })
}

describe('passkey registration', () => {
  let f: Fixture
  beforeEach(() => {
    f = fixture()
  })

  it('stores a passkey that requires user verification, as a discoverable credential', async () => {
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    const start = await f.service.beginRegistration({
      accountId: 'alice',
      userName: 'alice',
      sessionBinding: SESSION,
    })
    expect(start.options.rp.id).toBe(RP_ID)
    expect(start.options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    })
    expect(start.options.attestation).toBe('none')
    const passkey = await f.service.finishRegistration({
      accountId: 'alice',
      sessionBinding: SESSION,
      browserBinding: start.revealBrowserBinding(),
      response: authenticator.register(start.options),
    })
    expect(passkey).toMatchObject({
      credentialId: authenticator.credentialId,
      accountId: 'alice',
      counter: 0,
    })
    expect(await f.service.list('alice')).toHaveLength(1)
    expect(f.events.map((event) => event.type)).toEqual(['passkey.registered'])
  })

  it('excludes the passkeys the account already has and refuses registering one twice', async () => {
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    await register(f, authenticator)
    const start = await f.service.beginRegistration({
      accountId: 'alice',
      userName: 'alice',
      sessionBinding: SESSION,
    })
    expect(start.options.excludeCredentials?.map((c) => c.id)).toEqual([authenticator.credentialId])
    await expect(
      f.service.finishRegistration({
        accountId: 'alice',
        sessionBinding: SESSION,
        browserBinding: start.revealBrowserBinding(),
        response: authenticator.register(start.options),
      }),
    ).rejects.toMatchObject({ code: 'passkey.already_registered' })
  })

  it.each([
    ['a wrong origin', { origin: 'https://evil.example' }],
    ['a sibling origin not configured', { origin: 'https://admin.app.example' }],
    ['a wrong RP ID', { rpId: 'evil.example' }],
    ['no user verification', { userVerified: false }],
    ['a get() response', { type: 'webauthn.get' }],
  ])('refuses a registration with %s', async (_name, overrides) => {
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    const start = await f.service.beginRegistration({
      accountId: 'alice',
      userName: 'alice',
      sessionBinding: SESSION,
    })
    await expect(
      f.service.finishRegistration({
        accountId: 'alice',
        sessionBinding: SESSION,
        browserBinding: start.revealBrowserBinding(),
        response: authenticator.register(start.options, overrides),
      }),
    ).rejects.toMatchObject({ code: 'passkey.verification_failed' })
    expect(await f.service.list('alice')).toEqual([])
  })

  it("refuses a challenge issued to another account's session, and burns it", async () => {
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    const start = await f.service.beginRegistration({
      accountId: 'alice',
      userName: 'alice',
      sessionBinding: SESSION,
    })
    const response = authenticator.register(start.options)
    const attempt = (accountId: string, sessionBinding: string) =>
      f.service.finishRegistration({
        accountId,
        sessionBinding,
        browserBinding: start.revealBrowserBinding(),
        response,
      })
    await expect(attempt('alice', 'session:other')).rejects.toMatchObject({
      code: 'passkey.challenge_invalid',
    })
    await expect(attempt('alice', SESSION)).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
  })
})

describe('passkey sign-in', () => {
  let f: Fixture
  let authenticator: SoftwareAuthenticator
  beforeEach(async () => {
    f = fixture()
    authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN, counter: 10 })
    await register(f, authenticator)
  })

  it('signs in with a valid assertion and names the account', async () => {
    const start = await f.service.beginAuthentication()
    expect(start.options.userVerification).toBe('required')
    expect(start.options.allowCredentials ?? []).toEqual([])
    const assertion = await f.service.finishAuthentication({
      browserBinding: start.revealBrowserBinding(),
      response: authenticator.assert(start.options),
    })
    expect(assertion).toMatchObject({
      accountId: 'alice',
      credentialId: authenticator.credentialId,
      ceremony: 'sign_in',
    })
    expect((await f.passkeys.findPasskey(authenticator.credentialId))?.counter).toBe(11)
    expect(f.events.at(-1)).toMatchObject({ type: 'passkey.used', ceremony: 'sign_in' })
  })

  it.each([
    ['a wrong origin', { origin: 'https://evil.example' }],
    ['a wrong RP ID', { rpId: 'evil.example' }],
    ['user verification missing', { userVerified: false }],
    ['a user handle of another account', { userHandle: Buffer.from('mallory').toString('base64url') }],
  ])('refuses an assertion with %s', async (_name, overrides) => {
    await expect(signIn(f, authenticator, overrides)).rejects.toMatchObject({
      code: 'passkey.verification_failed',
    })
    expect(f.events.at(-1)).toMatchObject({ type: 'passkey.failed', accountId: 'alice' })
  })

  it('refuses a replayed challenge: a second finish with the same response', async () => {
    const start = await f.service.beginAuthentication()
    const response = authenticator.assert(start.options)
    const finish = () =>
      f.service.finishAuthentication({ browserBinding: start.revealBrowserBinding(), response })
    await finish()
    await expect(finish()).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
  })

  it('lets one of ten concurrent finishes of one challenge win', async () => {
    const start = await f.service.beginAuthentication()
    const response = authenticator.assert(start.options)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        f.service.finishAuthentication({ browserBinding: start.revealBrowserBinding(), response }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
  })

  it('refuses a challenge from another browser without burning it for the right one', async () => {
    const start = await f.service.beginAuthentication()
    const response = authenticator.assert(start.options)
    const other = await f.service.beginAuthentication()
    await expect(
      f.service.finishAuthentication({ browserBinding: other.revealBrowserBinding(), response }),
    ).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
    await expect(
      f.service.finishAuthentication({ browserBinding: start.revealBrowserBinding(), response }),
    ).resolves.toMatchObject({ accountId: 'alice' })
  })

  it('refuses an invented challenge and an expired one', async () => {
    const start = await f.service.beginAuthentication()
    const forged = authenticator.assert(start.options, { challenge: randomBytes(32).toString('base64url') })
    await expect(
      f.service.finishAuthentication({ browserBinding: start.revealBrowserBinding(), response: forged }),
    ).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
    f.clock.now += 300_000
    await expect(
      f.service.finishAuthentication({
        browserBinding: start.revealBrowserBinding(),
        response: authenticator.assert(start.options),
      }),
    ).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
  })

  it('suspends a passkey whose counter goes backwards and refuses it from then on', async () => {
    await signIn(f, authenticator)
    await expect(signIn(f, authenticator, { counter: 5 })).rejects.toMatchObject({
      code: 'passkey.credential_suspended',
    })
    expect(f.events.find((event) => event.type === 'passkey.counter_regressed')).toMatchObject({
      accountId: 'alice',
      credentialId: authenticator.credentialId,
      storedCounter: 11,
      presentedCounter: 5,
    })
    expect((await f.passkeys.findPasskey(authenticator.credentialId))?.suspendedAt).not.toBeNull()
    // Even the genuine authenticator's next (higher) counter is refused now.
    await expect(signIn(f, authenticator)).rejects.toMatchObject({ code: 'passkey.credential_suspended' })
  })

  it('treats a repeated counter as a regression', async () => {
    await signIn(f, authenticator)
    await expect(signIn(f, authenticator, { counter: 11 })).rejects.toMatchObject({
      code: 'passkey.credential_suspended',
    })
  })

  it('accepts authenticators without a counter (always 0)', async () => {
    const synced = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    await register(f, synced, 'bob')
    await signIn(f, synced)
    await expect(signIn(f, synced)).resolves.toMatchObject({ accountId: 'bob' })
  })

  it('refuses an unknown credential with its own code, and a tampered signature', async () => {
    const stranger = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    await expect(signIn(f, stranger)).rejects.toMatchObject({ code: 'passkey.unknown_credential' })
    expect(f.events.at(-1)).toMatchObject({ type: 'passkey.failed', reason: 'unknown_credential' })
    const start = await f.service.beginAuthentication()
    const response = authenticator.assert(start.options)
    const signature = Buffer.from(response.response.signature, 'base64url')
    signature[signature.length - 1] = (signature.at(-1) ?? 0) ^ 1
    response.response.signature = signature.toString('base64url')
    await expect(
      f.service.finishAuthentication({ browserBinding: start.revealBrowserBinding(), response }),
    ).rejects.toMatchObject({ code: 'passkey.verification_failed' })
  })

  it('refuses malformed responses as bad input before touching a challenge', async () => {
    const start = await f.service.beginAuthentication()
    for (const response of [
      null,
      'x',
      { id: 'a', rawId: 'b', type: 'public-key', response: {} },
      { ...authenticator.assert(start.options), type: 'other' },
    ]) {
      await expect(
        f.service.finishAuthentication({ browserBinding: start.revealBrowserBinding(), response }),
      ).rejects.toMatchObject({ code: 'passkey.invalid_input' })
    }
    await expect(
      f.service.finishAuthentication({
        browserBinding: start.revealBrowserBinding(),
        response: authenticator.assert(start.options),
      }),
    ).resolves.toMatchObject({ accountId: 'alice' })
  })
})

describe('passkey step-up', () => {
  it("binds the challenge to the account, session and purpose and lists only the account's passkeys", async () => {
    const f = fixture()
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    await register(f, authenticator)
    const stepUp = { accountId: 'alice', sessionBinding: SESSION, purpose: 'account.delete' }
    const start = await f.service.beginAuthentication({ stepUp })
    expect(start.options.allowCredentials?.map((c) => c.id)).toEqual([authenticator.credentialId])
    const assertion = await f.service.finishAuthentication({
      browserBinding: start.revealBrowserBinding(),
      response: authenticator.assert(start.options),
      stepUp,
    })
    expect(assertion.ceremony).toBe('step_up')
    for (const wrong of [
      { purpose: 'payments.approve' },
      { sessionBinding: 'session:other' },
      { accountId: 'mallory' },
    ]) {
      const again = await f.service.beginAuthentication({ stepUp })
      await expect(
        f.service.finishAuthentication({
          browserBinding: again.revealBrowserBinding(),
          response: authenticator.assert(again.options),
          stepUp: { ...stepUp, ...wrong },
        }),
      ).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
    }
    // A sign-in challenge does not step up, and a step-up challenge does not sign in.
    const signInStart = await f.service.beginAuthentication()
    await expect(
      f.service.finishAuthentication({
        browserBinding: signInStart.revealBrowserBinding(),
        response: authenticator.assert(signInStart.options),
        stepUp,
      }),
    ).rejects.toMatchObject({ code: 'passkey.challenge_invalid' })
  })

  it("refuses another account's passkey for a step-up", async () => {
    const f = fixture()
    const alice = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    const mallory = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN })
    await register(f, alice)
    await register(f, mallory, 'mallory')
    const stepUp = { accountId: 'alice', sessionBinding: SESSION, purpose: 'account.delete' }
    const start = await f.service.beginAuthentication({ stepUp })
    await expect(
      f.service.finishAuthentication({
        browserBinding: start.revealBrowserBinding(),
        response: mallory.assert(start.options),
        stepUp,
      }),
    ).rejects.toMatchObject({ code: 'passkey.verification_failed' })
  })
})

describe('passkey configuration and output', () => {
  it.each([
    [{ rpId: 'https://app.example' }],
    [{ origins: ['https://app.example/'] }],
    [{ origins: ['http://app.example'] }],
    [{ origins: ['https://evil.example'] }],
    [{ origins: [] }],
    [{ pepper: randomBytes(16) }],
  ])('refuses %j at startup', (override) => {
    expect(
      () =>
        new PasskeyService({
          rpId: RP_ID,
          rpName: 'x',
          origins: [ORIGIN],
          passkeys: new MemoryPasskeyStore(),
          challenges: new MemoryPasskeyChallengeStore(),
          pepper: randomBytes(32),
          ...override,
        }),
    ).toThrow(expect.objectContaining({ code: 'passkey.invalid_config' }))
  })

  it('never shows the browser binding in inspect or JSON output', async () => {
    const f = fixture()
    const start = await f.service.beginAuthentication()
    for (const shown of [inspect(start), JSON.stringify(start)])
      expect(shown).not.toContain(start.revealBrowserBinding())
  })
})
