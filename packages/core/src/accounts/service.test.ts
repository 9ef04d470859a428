import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { cookiePair, localFixture, requestSource } from '../../test/support/local-accounts.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { MemoryRateLimitStore } from '../local-accounts/rate-limits/memory-rate-limit-store.js'
import type { SessionSignIn } from '../local-accounts/sign-in.js'
import { ProviderTokenSet } from '../oauth/accounts/token-set.js'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { MemoryStepUpStore } from '../step-up/memory-store.js'
import { StepUpService } from '../step-up/service.js'
import type { ProviderTokenRevocations } from './deletion.js'
import { MemoryAccountStore } from './memory-store.js'
import { AccountService, type AccountSession } from './service.js'

const PASSWORD = 'correct horse battery staple'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k', randomBytes(32)),
})

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isPortcullisError(error)) return error.code
    throw error
  }
  return 'no error'
}

/** A password account signed in with a session, its AccountService, and what proves the session. */
async function signedIn(options: { providerTokens?: ProviderTokenRevocations } = {}) {
  const stepUpStore = new MemoryStepUpStore()
  const accounts = new MemoryAccountStore({ cascade: [stepUpStore] })
  const fixture = await localFixture({ accounts, rateLimits: new MemoryRateLimitStore() })
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(fixture.clock()) })
  const service = new AccountService({ accounts, local: fixture.local, stepUp, ...options })
  const { accountId } = await fixture.local.register({ username: 'alice', password: PASSWORD })
  const signIn = (await fixture.local.login(
    { username: 'alice', password: PASSWORD },
    { transport: 'session' },
  )) as SessionSignIn
  const session: AccountSession = { accountId, securityEpoch: 1, sessionHandle: signIn.handle }
  const google = accounts.oauth({ provider: 'google', clientId: 'g', protector })
  const live = async (sessionSignIn: SessionSignIn) => {
    const outcome = (await fixture.local.mechanisms[0]?.authenticate(
      requestSource({ cookie: cookiePair(sessionSignIn.setCookie) }),
    )) as AuthenticationOutcome
    return outcome.kind
  }
  return { ...fixture, accounts, stepUp, service, accountId, session, signIn, google, live }
}

const identity = { provider: 'google', issuer: 'https://google.example', subject: 'alice-at-google' }
const tokens = () =>
  new ProviderTokenSet({
    accessToken: `access-${randomBytes(4).toString('hex')}`,
    refreshToken: `refresh-${randomBytes(4).toString('hex')}`,
    scopes: ['openid'],
    expiresAt: new Date(Date.UTC(2031, 2, 5)),
  })

describe('password step-up', () => {
  it('issues a one-use credential for any purpose, bound to the session and epoch', async () => {
    const { service, session, stepUp, events } = await signedIn()
    const credential = await service.passwordStepUp({ session, purpose: 'export-data', password: PASSWORD })
    const binding = { accountId: session.accountId, securityEpoch: 1, sessionBinding: session.sessionHandle }
    const token = credential.reveal()
    expect((await stepUp.consume({ token, purpose: 'export-data', ...binding })).kind).toBe('consumed')
    expect((await stepUp.consume({ token, purpose: 'export-data', ...binding })).kind).toBe('rejected')
    expect(events.map((event) => event.type)).toContain('step_up.issued')
  })

  it('refuses a wrong password, and after the sign-in limit answers 429 before any hashing', async () => {
    const { service, session, hasher } = await signedIn()
    const wrong = { session, purpose: 'delete-account', password: 'not the password' }
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect(await code(service.passwordStepUp(wrong))).toBe('local.invalid_credentials')
    }
    const hashed = hasher.verifies
    expect(await code(service.passwordStepUp(wrong))).toBe('local.rate_limited')
    expect(await code(service.passwordStepUp({ ...wrong, password: PASSWORD }))).toBe('local.rate_limited')
    expect(hasher.verifies).toBe(hashed)
  })

  it('refuses a malformed purpose without counting an attempt or hashing', async () => {
    const { service, session, hasher } = await signedIn()
    const verifies = hasher.verifies
    for (const purpose of ['', 'has space', 'x'.repeat(300)]) {
      expect(await code(service.passwordStepUp({ session, purpose, password: PASSWORD }))).toBe(
        'step-up.invalid_input',
      )
    }
    expect(hasher.verifies).toBe(verifies)
  })

  it('an account that signs in with a provider only has no password to confirm (409)', async () => {
    const { service, google } = await signedIn()
    const login = await google.login({
      identity,
      grant: { scopes: ['openid'] },
      provisionUnknown: true,
      now: new Date(),
    })
    const session = { accountId: login.link.accountId, securityEpoch: 1, sessionHandle: 'h'.repeat(22) }
    expect(
      await code(service.passwordStepUp({ session, purpose: 'delete-account', password: PASSWORD })),
    ).toBe('account.password_missing')
  })
})

describe('adding and removing the password', () => {
  it('adds a password to a provider-only account with a password-add credential, once', async () => {
    const { service, google, stepUp, accounts } = await signedIn()
    const login = await google.login({
      identity,
      grant: { scopes: ['openid'] },
      provisionUnknown: true,
      now: new Date(),
    })
    const session = {
      accountId: login.link.accountId,
      securityEpoch: 1,
      sessionHandle: 'idp-session-handle-1',
    }
    const request = { session, username: 'Alice2', password: 'another long password' }
    expect(await code(service.addPassword({ ...request, stepUpToken: '' }))).toBe('step-up.required')
    const issue = (purpose: string) =>
      stepUp.issue({
        accountId: session.accountId,
        purpose,
        securityEpoch: 1,
        sessionBinding: session.sessionHandle,
      })
    // A credential of another purpose is refused (and burned).
    const other = await issue('delete-account')
    expect(await code(service.addPassword({ ...request, stepUpToken: other.reveal() }))).toBe(
      'step-up.required',
    )
    const taken = await issue('password-add')
    expect(
      await code(service.addPassword({ ...request, username: 'alice', stepUpToken: taken.reveal() })),
    ).toBe('local.username_taken')
    // A common password is refused by the screen before the credential is spent: the same one adds next.
    const kept = (await issue('password-add')).reveal()
    expect(await code(service.addPassword({ ...request, password: 'iloveyou2', stepUpToken: kept }))).toBe(
      'local.password_screened',
    )
    expect(await accounts.findPassword({ username: 'alice2' })).toBeNull()
    const added = await service.addPassword({ ...request, stepUpToken: kept })
    expect(added).toMatchObject({ kind: 'password', username: 'alice2' })
    expect((await accounts.findPassword({ username: 'alice2' }))?.accountId).toBe(session.accountId)
    expect(
      await code(service.addPassword({ ...request, stepUpToken: (await issue('password-add')).reveal() })),
    ).toBe('account.password_exists')
  })

  it('never removes the last method, and refuses before spending the credential', async () => {
    const { service, session, stepUp } = await signedIn()
    const credential = await stepUp.issue({
      accountId: session.accountId,
      purpose: 'password-remove',
      securityEpoch: 1,
      sessionBinding: session.sessionHandle,
    })
    const request = {
      session,
      stepUpToken: credential.reveal(),
      credentials: { sessionHandle: session.sessionHandle },
    }
    expect(await code(service.removePassword(request))).toBe('account.final_method')
    const binding = { accountId: session.accountId, securityEpoch: 1, sessionBinding: session.sessionHandle }
    expect(
      (await stepUp.consume({ token: credential.reveal(), purpose: 'password-remove', ...binding })).kind,
    ).toBe('consumed')
  })

  it('removes the password beside an identity: the epoch moves, other sessions end, the caller keeps one', async () => {
    const { service, session, stepUp, google, local, live, accounts } = await signedIn()
    await google.link({
      accountId: session.accountId,
      identity,
      grant: { scopes: ['openid'] },
      now: new Date(),
    })
    const other = (await local.login(
      { username: 'alice', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    expect(await live(other)).toBe('authenticated')
    const credential = await stepUp.issue({
      accountId: session.accountId,
      purpose: 'password-remove',
      securityEpoch: 1,
      sessionBinding: session.sessionHandle,
    })
    const renewed = await service.removePassword({
      session,
      stepUpToken: credential.reveal(),
      credentials: { sessionHandle: session.sessionHandle },
    })
    expect(renewed.securityEpoch).toBe(2)
    expect(renewed.session).toBeDefined()
    expect(await live(other)).toBe('invalid')
    expect(await live(renewed.session as SessionSignIn)).toBe('authenticated')
    expect(await accounts.findPassword({ username: 'alice' })).toBeNull()
    expect(await code(local.login({ username: 'alice', password: PASSWORD }, { transport: 'session' }))).toBe(
      'local.invalid_credentials',
    )
  })
})

describe('deleting an account', () => {
  const deleteCredential = async (fixture: Awaited<ReturnType<typeof signedIn>>) =>
    (
      await fixture.stepUp.issue({
        accountId: fixture.session.accountId,
        purpose: 'delete-account',
        securityEpoch: 1,
        sessionBinding: fixture.session.sessionHandle,
      })
    ).reveal()

  it('needs a delete-account credential; then the account, its sessions and step-up credentials are gone at once', async () => {
    const fixture = await signedIn()
    const { service, session, stepUp, accounts, live, signIn, events } = fixture
    expect(await code(service.deleteAccount({ session, stepUpToken: 'x'.repeat(43) }))).toBe(
      'step-up.required',
    )
    expect(await accounts.getAccount(session.accountId)).not.toBeNull()
    const spare = await stepUp.issue({
      accountId: session.accountId,
      purpose: 'oauth-link',
      securityEpoch: 1,
      sessionBinding: session.sessionHandle,
    })
    expect(await live(signIn)).toBe('authenticated')
    const outcome = await service.deleteAccount({ session, stepUpToken: await deleteCredential(fixture) })
    expect(outcome).toEqual({ stagedRevocations: 0 })
    expect(await accounts.getAccount(session.accountId)).toBeNull()
    expect(await live(signIn)).toBe('invalid')
    const binding = { accountId: session.accountId, securityEpoch: 1, sessionBinding: session.sessionHandle }
    expect((await stepUp.consume({ token: spare.reveal(), purpose: 'oauth-link', ...binding })).kind).toBe(
      'rejected',
    )
    expect(events.at(-1)).toMatchObject({
      type: 'account.deleted',
      accountId: session.accountId,
      stagedRevocations: 0,
    })
    expect(JSON.stringify(events)).not.toContain(PASSWORD)
  })

  it('stages retained provider tokens first; tokens a sign-in retains during the deletion are staged in the next round', async () => {
    let fixture: Awaited<ReturnType<typeof signedIn>> | undefined
    let rounds = 0
    const providerTokens: ProviderTokenRevocations = {
      async stageAccountRevocations(accountId) {
        rounds += 1
        const google = fixture?.google
        const link = await google?.resolveLink({ accountId, provider: 'google' })
        const stored = link == null ? null : await google?.getTokens(link.providerAccountId)
        if (google === undefined || link == null || stored == null) return 0
        const staged = await google.stageRevocationRetry({
          providerAccountId: link.providerAccountId,
          expectedVersion: stored.reference.version,
          tokens: stored.tokens,
          failedTokenTypes: ['refresh_token', 'access_token'],
          occurredAt: new Date(),
        })
        // A concurrent sign-in retains fresh tokens right after the first staging.
        if (rounds === 1)
          await google.login({
            identity,
            grant: { scopes: ['openid'] },
            tokens: tokens(),
            provisionUnknown: false,
            now: new Date(),
          })
        return staged === null ? 0 : 1
      },
    }
    fixture = await signedIn({ providerTokens })
    const { service, session, google, accounts } = fixture
    await google.link({
      accountId: session.accountId,
      identity,
      grant: { scopes: ['openid'] },
      tokens: tokens(),
      now: new Date(),
    })
    const outcome = await service.deleteAccount({ session, stepUpToken: await deleteCredential(fixture) })
    expect(outcome).toEqual({ stagedRevocations: 2 })
    expect(rounds).toBe(2)
    expect(await accounts.getAccount(session.accountId)).toBeNull()
    const retries = await google.claimRevocationRetries({ now: new Date(), leaseSeconds: 60, limit: 10 })
    expect(retries).toHaveLength(2)
  })

  it('gives up (503, nothing deleted) when tokens keep arriving, and refuses to delete unrevoked tokens unconfigured', async () => {
    const stubborn: ProviderTokenRevocations = { stageAccountRevocations: async () => 0 }
    const fixture = await signedIn({ providerTokens: stubborn })
    const { service, session, google, accounts } = fixture
    await google.link({
      accountId: session.accountId,
      identity,
      grant: { scopes: ['openid'] },
      tokens: tokens(),
      now: new Date(),
    })
    expect(await code(service.deleteAccount({ session, stepUpToken: await deleteCredential(fixture) }))).toBe(
      'account.deletion_raced',
    )
    expect(await accounts.getAccount(session.accountId)).not.toBeNull()
    const unconfigured = new AccountService({ accounts, local: fixture.local, stepUp: fixture.stepUp })
    expect(
      await code(unconfigured.deleteAccount({ session, stepUpToken: await deleteCredential(fixture) })),
    ).toBe('account.provider_tokens_required')
    expect(await accounts.getAccount(session.accountId)).not.toBeNull()
  })

  it('two concurrent deletions with two credentials: one deletes, the other finds nothing (401)', async () => {
    const fixture = await signedIn()
    const { service, session } = fixture
    const [first, second] = [await deleteCredential(fixture), await deleteCredential(fixture)]
    const outcomes = await Promise.all([
      code(service.deleteAccount({ session, stepUpToken: first })),
      code(service.deleteAccount({ session, stepUpToken: second })),
    ])
    expect(outcomes.sort()).toEqual(['account.not_found', 'no error'])
  })
})

describe('disabling an account', () => {
  it('ends its sessions at once here and refuses every sign-in until it is enabled', async () => {
    const { service, session, local, live, signIn, events } = await signedIn()
    const disabled = await service.setStatus({ accountId: session.accountId, status: 'disabled' })
    expect(disabled).toMatchObject({ status: 'disabled', securityEpoch: 2 })
    expect(await live(signIn)).toBe('invalid')
    expect(await code(local.login({ username: 'alice', password: PASSWORD }, { transport: 'session' }))).toBe(
      'account.disabled',
    )
    expect(await code(local.establishSignIn({ accountId: session.accountId, transport: 'session' }))).toBe(
      'account.disabled',
    )
    expect(events.map((event) => event.type)).toContain('account.status_changed')
    await service.setStatus({ accountId: session.accountId, status: 'active' })
    const again = (await local.login(
      { username: 'alice', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    expect(await live(again)).toBe('authenticated')
  })
})
