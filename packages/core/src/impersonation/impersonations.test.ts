import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { cookiePair, localFixture, requestSource } from '../../test/support/local-accounts.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import type { SecurityEvent } from '../local-accounts/security-events.js'
import { SECURITY_EPOCH_ATTRIBUTE } from '../local-accounts/sessions/session-mechanism.js'
import type { SessionSignIn } from '../local-accounts/sign-in.js'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { MemoryStepUpStore } from '../step-up/memory-store.js'
import { StepUpService } from '../step-up/service.js'
import { ImpersonationEvents } from './events.js'
import { isImpersonationHandle } from './handle.js'
import { IMPERSONATION_STEP_UP_PURPOSE } from './options.js'
import { ImpersonationRefusedActs } from './refusal.js'
import { Impersonations } from './service.js'

const PASSWORD = 'correct horse battery staple'
const GRANTS: Record<string, readonly string[]> = {}

async function world(options: { ttlSeconds?: number } = {}) {
  const recorded: SecurityEvent[] = []
  const events = new ImpersonationEvents((event) => {
    recorded.push(event)
  })
  const fixture = await localFixture({ profile: 'session', events: events.sink })
  const { local, clock } = fixture
  const stepUp = new StepUpService({ store: new MemoryStepUpStore(), clock: () => new Date(clock()) })
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const grants = new Map<string, readonly string[]>()
  const impersonations = new Impersonations({
    local,
    stepUp,
    protector,
    events,
    clock,
    authorizationResolver: ({ principal }) =>
      principal.id === 'gone'
        ? null
        : { capabilities: grants.get(principal.id) ?? GRANTS[principal.id] ?? [] },
    ...options,
  })
  const [mechanism] = impersonations.mechanisms(local.mechanisms)
  const authenticate = async (cookie: string): Promise<AuthenticationOutcome> =>
    (await mechanism?.authenticate(requestSource({ cookie }))) as AuthenticationOutcome
  const person = async (username: string, capabilities: readonly string[] = []) => {
    const { accountId } = await local.register({ username, password: PASSWORD })
    grants.set(accountId, capabilities)
    const signIn = (await local.login(
      { username, password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    const outcome = await authenticate(cookiePair(signIn.setCookie))
    if (outcome.kind !== 'authenticated') throw new Error('not signed in')
    const securityEpoch = outcome.evidence.attributes?.[SECURITY_EPOCH_ATTRIBUTE] as number
    const session = { accountId, securityEpoch, sessionHandle: signIn.handle, sessionId: signIn.sessionId }
    const stepUpToken = async () =>
      (
        await stepUp.issue({
          accountId,
          purpose: IMPERSONATION_STEP_UP_PURPOSE,
          securityEpoch,
          sessionBinding: signIn.handle,
        })
      ).reveal()
    return { accountId, signIn, session, stepUpToken, cookie: cookiePair(signIn.setCookie) }
  }
  const admin = await person('admin', ['accounts.impersonate'])
  const alice = await person('alice')
  const snapshotOf = (capabilities: readonly string[]) =>
    ({ hasCapability: (name: string) => capabilities.includes(name) }) as never
  const start = async (target: string, overrides: Record<string, unknown> = {}) =>
    impersonations.start({
      administrator: admin.session,
      snapshot: snapshotOf(['accounts.impersonate']),
      accountId: target,
      reason: 'ticket 4711: cannot see invoices',
      stepUpToken: await admin.stepUpToken(),
      ...overrides,
    })
  return {
    ...fixture,
    recorded,
    events,
    stepUp,
    impersonations,
    authenticate,
    person,
    admin,
    alice,
    start,
    snapshotOf,
  }
}

const cookiesOf = (setCookies: readonly string[]) => setCookies.map(cookiePair).join('; ')

describe('Impersonations.start', () => {
  it('opens a short-lived session as the account whose principal carries the impersonator', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    expect(started.accountId).toBe(w.alice.accountId)
    expect(started.expiresAt.getTime()).toBe(w.clock() + 1800_000)
    const outcome = await w.authenticate(cookiesOf(started.setCookies))
    expect(outcome.kind).toBe('authenticated')
    if (outcome.kind !== 'authenticated') return
    expect(outcome.principal).toEqual({
      id: w.alice.accountId,
      kind: 'user',
      impersonator: { accountId: w.admin.accountId, impersonationId: started.impersonationId },
    })
    expect(isImpersonationHandle(outcome.evidence.attributes?.sessionHandle)).toBe(true)
    // The administrator's own session is untouched.
    const own = await w.authenticate(w.admin.cookie)
    expect(own.kind === 'authenticated' && own.principal.impersonator).toBeUndefined()
    expect(JSON.stringify(started)).not.toContain(w.admin.session.sessionId)
  })

  it('is refused without its impersonation cookie, or with another impersonation’s', async () => {
    const w = await world()
    const first = await w.start(w.alice.accountId)
    const bob = await w.person('bob')
    const second = await w.start(bob.accountId)
    const [sessionOfFirst, cookieOfFirst] = first.setCookies.map(cookiePair)
    const cookieOfSecond = cookiePair(second.setCookies[1] as string)
    expect((await w.authenticate(sessionOfFirst as string)).kind).toBe('invalid')
    expect((await w.authenticate(`${sessionOfFirst}; ${cookieOfSecond}`)).kind).toBe('invalid')
    const tampered = `${cookieOfFirst?.slice(0, -2)}${cookieOfFirst?.endsWith('A') ? 'B' : 'A'}A`
    expect((await w.authenticate(`${sessionOfFirst}; ${tampered}`)).kind).toBe('invalid')
    expect((await w.authenticate(`${sessionOfFirst}; ${cookieOfFirst}; ${cookieOfFirst}`)).kind).toBe(
      'invalid',
    )
  })

  it('refuses a caller without the capability, a blank reason, oneself, and an impersonation', async () => {
    const w = await world()
    await expect(w.start(w.alice.accountId, { snapshot: w.snapshotOf([]) })).rejects.toMatchObject({
      code: 'impersonation.forbidden',
    })
    for (const reason of ['', '   ', undefined, 42, 'x'.repeat(501), 'a\u0000b']) {
      await expect(w.start(w.alice.accountId, { reason })).rejects.toMatchObject({
        code: 'impersonation.invalid_input',
      })
    }
    await expect(w.start(w.admin.accountId)).rejects.toMatchObject({ code: 'impersonation.invalid_input' })
    await expect(w.start('', {})).rejects.toMatchObject({ code: 'impersonation.invalid_input' })
    const started = await w.start(w.alice.accountId)
    await expect(
      w.start(w.alice.accountId, {
        impersonator: { accountId: w.admin.accountId, impersonationId: started.impersonationId },
      }),
    ).rejects.toMatchObject({ code: 'impersonation.nested' })
  })

  it('needs a fresh one-use step-up: a missing, replayed or foreign one is refused', async () => {
    const w = await world()
    await expect(w.start(w.alice.accountId, { stepUpToken: '' })).rejects.toMatchObject({
      code: 'step-up.required',
    })
    const token = await w.admin.stepUpToken()
    await w.start(w.alice.accountId, { stepUpToken: token })
    await expect(w.start(w.alice.accountId, { stepUpToken: token })).rejects.toMatchObject({
      code: 'step-up.required',
    })
    const other = await w.person('carol', ['accounts.impersonate'])
    await expect(
      w.start(w.alice.accountId, { stepUpToken: await other.stepUpToken() }),
    ).rejects.toMatchObject({
      code: 'step-up.required',
    })
    const stale = await w.admin.stepUpToken()
    w.clock.advance(300_000)
    await expect(w.start(w.alice.accountId, { stepUpToken: stale })).rejects.toMatchObject({
      code: 'step-up.required',
    })
  })

  it('never impersonates an administrator without the separate capability; grants come from the resolver', async () => {
    const w = await world()
    const other = await w.person('other-admin', ['accounts.impersonate'])
    await expect(w.start(other.accountId)).rejects.toMatchObject({
      code: 'impersonation.target_is_administrator',
    })
    const chief = await w.person('chief', ['accounts.impersonate_administrators'])
    await expect(w.start(chief.accountId)).rejects.toMatchObject({
      code: 'impersonation.target_is_administrator',
    })
    const allowed = await w.start(other.accountId, {
      snapshot: w.snapshotOf(['accounts.impersonate', 'accounts.impersonate_administrators']),
    })
    expect(allowed.accountId).toBe(other.accountId)
    await expect(w.start('gone')).rejects.toMatchObject({ code: 'impersonation.target_not_found' })
    await expect(w.start('no-such-account')).rejects.toMatchObject({ code: 'impersonation.target_not_found' })
    await w.accounts.setAccountStatus({
      accountId: w.alice.accountId,
      status: 'disabled',
      now: new Date(w.clock()),
    })
    await expect(w.start(w.alice.accountId)).rejects.toMatchObject({ code: 'impersonation.target_not_found' })
  })
})

describe('an impersonation session', () => {
  it('obtains no step-up credential and cannot change the password', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const outcome = await w.authenticate(cookiesOf(started.setCookies))
    if (outcome.kind !== 'authenticated') throw new Error('not authenticated')
    const handle = outcome.evidence.attributes?.sessionHandle as string
    for (const purpose of [
      'password-add',
      'email-change',
      'totp-enroll',
      'passkey-register',
      'delete-account',
    ]) {
      await expect(
        w.stepUp.issue({ accountId: w.alice.accountId, purpose, securityEpoch: 0, sessionBinding: handle }),
      ).rejects.toMatchObject({ code: 'step-up.impersonated', errorClass: 'forbidden' })
      await expect(
        w.local
          .stepUp(w.stepUp)
          .issue({ accountId: w.alice.accountId, purpose, evidence: [outcome.evidence] }),
      ).rejects.toMatchObject({ code: 'step-up.impersonated' })
    }
    await expect(
      w.local.changePassword({
        accountId: w.alice.accountId,
        body: { currentPassword: PASSWORD, newPassword: 'another long passphrase here' },
        credentials: w.local.credentialsOf([outcome.evidence]),
      }),
    ).rejects.toMatchObject({ code: 'step-up.impersonated' })
  })

  it('is refused every act that would outlive it, naming the administrator; the person acting as themselves is not', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const outcome = await w.authenticate(cookiesOf(started.setCookies))
    if (outcome.kind !== 'authenticated') throw new Error('not authenticated')
    for (const act of Object.values(ImpersonationRefusedActs)) {
      expect(() =>
        w.impersonations.refuse({
          principal: outcome.principal,
          act,
          request: { peerAddress: '203.0.113.9' },
        }),
      ).toThrow(expect.objectContaining({ code: 'impersonation.refused', errorClass: 'forbidden' }))
    }
    const refused = w.recorded.filter((event) => event.type === 'impersonation.refused')
    expect(refused).toEqual(
      Object.values(ImpersonationRefusedActs).map((act) => ({
        type: 'impersonation.refused',
        at: expect.any(Date),
        accountId: w.alice.accountId,
        actorId: w.admin.accountId,
        impersonationId: started.impersonationId,
        act,
        clientAddress: '203.0.113.9',
      })),
    )
    // Alice herself, and an anonymous request, are not refused, and nothing is recorded for them.
    const own = await w.authenticate(w.alice.cookie)
    if (own.kind !== 'authenticated') throw new Error('not authenticated')
    expect(() => w.impersonations.refuse({ principal: own.principal, act: 'api_key.issue' })).not.toThrow()
    expect(() => w.impersonations.refuse({ principal: null, act: 'api_key.issue' })).not.toThrow()
    expect(w.recorded.filter((event) => event.type === 'impersonation.refused')).toHaveLength(refused.length)
    // An act that is not a noun.verb name is a caller's mistake, whoever asks, never a silent pass.
    for (const act of ['', 'api_key', 'API key', 'a.b.c', `x.${'y'.repeat(40)}`]) {
      for (const principal of [outcome.principal, own.principal]) {
        expect(() => w.impersonations.refuse({ principal, act })).toThrow(
          expect.objectContaining({ code: 'impersonation.invalid_input' }),
        )
      }
    }
  })

  it('ends at its bound on the session check itself', async () => {
    const w = await world({ ttlSeconds: 600 })
    const started = await w.start(w.alice.accountId)
    const cookie = cookiesOf(started.setCookies)
    w.clock.advance(599_000)
    expect((await w.authenticate(cookie)).kind).toBe('authenticated')
    w.clock.advance(1_000)
    expect((await w.authenticate(cookie)).kind).toBe('invalid')
  })

  it('ends when the administrator ends it: the administrator session comes back', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const cookie = cookiesOf(started.setCookies)
    const outcome = await w.authenticate(cookie)
    if (outcome.kind !== 'authenticated') throw new Error('not authenticated')
    const ended = await w.impersonations.end({
      impersonator: outcome.principal.impersonator,
      sessionHandle: outcome.evidence.attributes?.sessionHandle as string,
      cookieHeader: cookie,
    })
    expect(ended.administratorId).toBe(w.admin.accountId)
    expect((await w.authenticate(cookie)).kind).toBe('invalid')
    const restored = await w.authenticate(cookiePair(ended.setCookies[0] as string))
    expect(restored.kind === 'authenticated' && restored.principal.id).toBe(w.admin.accountId)
    expect(ended.setCookies[1]).toMatch(/Max-Age=0/)
    await expect(
      w.impersonations.end({
        impersonator: undefined,
        sessionHandle: w.admin.signIn.handle,
        cookieHeader: w.admin.cookie,
      }),
    ).rejects.toMatchObject({ code: 'impersonation.not_impersonating' })
  })

  it('ends when the administrator signs out, and every event it caused names the administrator', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const cookie = cookiesOf(started.setCookies)
    expect((await w.authenticate(cookie)).kind).toBe('authenticated')
    await w.local.logout({
      accountId: w.admin.accountId,
      credentials: { sessionHandle: w.admin.signIn.handle },
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect((await w.authenticate(cookie)).kind).toBe('invalid')
    const ended = w.recorded.find((event) => event.type === 'impersonation.ended')
    expect(ended).toMatchObject({
      actorId: w.admin.accountId,
      reason: 'administrator_signed_out',
      sessions: 1,
    })
    const startedEvent = w.recorded.find((event) => event.type === 'impersonation.started')
    expect(startedEvent).toMatchObject({
      accountId: w.alice.accountId,
      actorId: w.admin.accountId,
      impersonationId: started.impersonationId,
      reason: 'ticket 4711: cannot see invoices',
    })
    const during = w.recorded.filter((event) =>
      isImpersonationHandle((event as { sessionHandle?: string }).sessionHandle),
    )
    expect(during.map((event) => event.type)).toEqual(
      expect.arrayContaining(['session.created', 'impersonation.started']),
    )
    for (const event of during) {
      expect(event).toMatchObject({ actorId: w.admin.accountId, impersonationId: started.impersonationId })
    }
    const text = JSON.stringify(w.recorded)
    for (const secret of [
      w.admin.session.sessionId,
      ...started.setCookies.map((line) => cookiePair(line).split('=')[1]),
    ]) {
      expect(text).not.toContain(secret)
    }
  })

  it('names the administrator in the revocation of a session the impersonation ends, and nobody in the person’s own', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const outcome = await w.authenticate(cookiesOf(started.setCookies))
    if (outcome.kind !== 'authenticated') throw new Error('the impersonation does not authenticate')
    const signIn = async () =>
      (await w.local.login(
        { username: 'alice', password: PASSWORD },
        { transport: 'session' },
      )) as SessionSignIn
    const phone = await signIn()
    const tablet = await signIn()
    const { impersonator } = outcome.principal
    expect(await w.local.revokeSession(w.alice.accountId, phone.handle, { impersonator })).toBe(true)
    expect(await w.local.revokeSession(w.alice.accountId, tablet.handle, {})).toBe(true)
    const revoked = (handle: string) =>
      w.recorded.find((event) => event.type === 'session.revoked' && event.sessionHandle === handle)
    expect(revoked(phone.handle)).toMatchObject({
      accountId: w.alice.accountId,
      reason: 'revoked_by_account',
      actorId: w.admin.accountId,
      impersonationId: started.impersonationId,
    })
    expect(revoked(tablet.handle)).toMatchObject({
      accountId: w.alice.accountId,
      reason: 'revoked_by_account',
    })
    expect(revoked(tablet.handle)).not.toHaveProperty('actorId')
    expect(revoked(tablet.handle)).not.toHaveProperty('impersonationId')
  })

  it('names the administrator in the epoch move and every revocation of a sign-out everywhere it asks for', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const outcome = await w.authenticate(cookiesOf(started.setCookies))
    if (outcome.kind !== 'authenticated') throw new Error('the impersonation does not authenticate')
    const from = w.recorded.length
    await w.local.logout({
      accountId: w.alice.accountId,
      body: { all: true },
      credentials: w.local.credentialsOf([outcome.evidence]),
      request: { impersonator: outcome.principal.impersonator },
    })
    const during = w.recorded.slice(from)
    const marked = { actorId: w.admin.accountId, impersonationId: started.impersonationId }
    expect(during.find((event) => event.type === 'epoch.bumped')).toMatchObject({
      accountId: w.alice.accountId,
      reason: 'sign_out_everywhere',
      ...marked,
    })
    const revoked = during.filter((event) => event.type === 'session.revoked')
    expect(revoked.map((event) => event.sessionHandle)).toContain(w.alice.signIn.handle)
    for (const event of revoked) expect(event).toMatchObject(marked)
    const own = w.recorded.length
    await w.local.signOutEverywhere(w.alice.accountId)
    const moved = w.recorded.slice(own).find((event) => event.type === 'epoch.bumped')
    expect(moved).toMatchObject({ accountId: w.alice.accountId })
    expect(moved).not.toHaveProperty('actorId')
  })
})

describe('a refused cross-site request of an impersonation', () => {
  it('names the administrator and the impersonation in csrf.refused; the person’s own names nobody', async () => {
    const w = await world()
    const started = await w.start(w.alice.accountId)
    const cookie = cookiesOf(started.setCookies)
    const outcome = await w.authenticate(cookie)
    if (outcome.kind !== 'authenticated') throw new Error('the impersonation does not authenticate')
    const crossSite = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }
    const [mechanism] = w.impersonations.mechanisms(w.local.mechanisms)
    const refusedFor = async (cookieHeader: string) => {
      const from = w.recorded.length
      const answer = await mechanism?.authenticate(
        requestSource({ method: 'POST', headers: crossSite, cookie: cookieHeader }),
      )
      expect(answer?.kind).toBe('invalid')
      for (let turn = 0; turn < 100; turn += 1) {
        const found = w.recorded.slice(from).find((event) => event.type === 'csrf.refused')
        if (found !== undefined) return found
        await new Promise((resolve) => setImmediate(resolve))
      }
      throw new Error('no csrf.refused event')
    }
    expect(await refusedFor(cookie)).toMatchObject({
      accountId: w.alice.accountId,
      sessionHandle: outcome.evidence.attributes?.sessionHandle,
      actorId: w.admin.accountId,
      impersonationId: started.impersonationId,
    })
    const own = await refusedFor(w.alice.cookie)
    expect(own).toMatchObject({ accountId: w.alice.accountId, sessionHandle: w.alice.signIn.handle })
    expect(own).not.toHaveProperty('actorId')
    expect(own).not.toHaveProperty('impersonationId')
  })
})
