import { describe, expect, it } from 'vitest'
import { cookiePair, localFixture, requestSource } from '../../test/support/local-accounts.js'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import { AccountService, type AccountSession } from '../accounts/service.js'
import { MemoryApiKeyStore } from '../api-keys/memory-api-key-store.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import { AuthorizationSnapshot } from '../authorization/snapshot.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { MemoryRateLimitStore } from '../local-accounts/rate-limits/memory-rate-limit-store.js'
import type { SessionSignIn } from '../local-accounts/sign-in.js'
import { MemorySecurityLog } from '../security-log/memory.js'
import type { SecurityLog } from '../security-log/port.js'
import { MemoryStepUpStore } from '../step-up/memory-store.js'
import { StepUpService } from '../step-up/service.js'
import { ADMINISTRATION_STEP_UP_PURPOSE, isAdministrator } from './administrators.js'
import { ADMINISTRATION_EVENT_TYPES } from './audit.js'
import { AccountAdministration, type PasswordResetMailer } from './service.js'

const PASSWORD = 'correct horse battery staple'
const KEY_ONE = 'AAAAAAAAAAAAAAAA'
const KEY_TWO = 'BBBBBBBBBBBBBBBA'

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isPortcullisError(error)) return error.code
    throw error
  }
  return 'no error'
}

/** An administrator and a user, both signed in, the administration over memory stores. */
async function world(
  options: { log?: SecurityLog; passwordReset?: PasswordResetMailer; inTransaction?: MemorySecurityLog } = {},
) {
  const stepUpStore = new MemoryStepUpStore()
  const inTransaction = options.inTransaction === undefined ? {} : { securityLog: options.inTransaction }
  const apiKeyStore = new MemoryApiKeyStore(inTransaction)
  const accounts = new MemoryAccountStore({ cascade: [stepUpStore, apiKeyStore], ...inTransaction })
  const fixture = await localFixture({ accounts, rateLimits: new MemoryRateLimitStore() })
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(fixture.clock()) })
  const service = new AccountService({ accounts, local: fixture.local, stepUp })
  const log = options.log ?? options.inTransaction ?? new MemorySecurityLog()
  const administration = new AccountAdministration({
    accounts,
    local: fixture.local,
    stepUp,
    log,
    apiKeys: { store: apiKeyStore, directory: apiKeyStore },
    ...(options.passwordReset === undefined ? {} : { passwordReset: options.passwordReset }),
  })
  const signIn = async (username: string) => {
    const { accountId } = await fixture.local.register({ username, password: PASSWORD })
    const session = (await fixture.local.login(
      { username, password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    return {
      accountId,
      signIn: session,
      session: { accountId, securityEpoch: 1, sessionHandle: session.handle },
    }
  }
  const admin = await signIn('root')
  const user = await signIn('alice')
  const live = async (session: SessionSignIn) => {
    const outcome = (await fixture.local.mechanisms[0]?.authenticate(
      requestSource({ cookie: cookiePair(session.setCookie) }),
    )) as AuthenticationOutcome
    return outcome.kind
  }
  /** A fresh one-use `administration` credential of the administrator, earned with the password. */
  const stepUpToken = async (session: AccountSession = admin.session) =>
    (
      await service.passwordStepUp({ session, purpose: ADMINISTRATION_STEP_UP_PURPOSE, password: PASSWORD })
    ).reveal()
  const change = async (accountId = user.accountId) => ({
    administrator: admin.session,
    stepUpToken: await stepUpToken(),
    accountId,
    reason: 'reported for abuse in ticket 4711',
    request: { peerAddress: '203.0.113.9', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' },
  })
  return {
    ...fixture,
    accounts,
    apiKeyStore,
    stepUp,
    administration,
    log,
    admin,
    user,
    live,
    stepUpToken,
    change,
  }
}

describe('AccountAdministration', () => {
  it('disables an account: its session ends, it cannot sign in, and the act is audited; enabling restores sign-in', async () => {
    const w = await world()
    expect(await w.live(w.user.signIn)).toBe('authenticated')
    const outcome = await w.administration.disable(await w.change())
    expect(outcome.account?.status).toBe('disabled')
    expect(outcome.account?.securityEpoch).toBe(2)
    expect(await w.live(w.user.signIn)).toBe('invalid')
    expect(
      await code(w.local.login({ username: 'alice', password: PASSWORD }, { transport: 'session' })),
    ).toBe('account.disabled')
    const page = await w.log.listForAccount({ accountId: w.user.accountId, limit: 10 })
    const entry = page.entries.find((each) => each.type === ADMINISTRATION_EVENT_TYPES.disabled)
    expect(entry?.id).toBe(outcome.auditId)
    expect(entry?.actorId).toBe(w.admin.accountId)
    expect(entry?.sessionHandle).toBe(w.admin.session.sessionHandle)
    expect(entry?.details.reasonText).toBe('reported for abuse in ticket 4711')
    expect(entry?.clientAddress).toBe('203.0.113.9')

    const enabled = await w.administration.enable(await w.change())
    expect(enabled.account?.status).toBe('active')
    await expect(
      w.local.login({ username: 'alice', password: PASSWORD }, { transport: 'session' }),
    ).resolves.toBeDefined()
  })

  it('refuses a change without a step-up, with a stale one, a spent one or one of another purpose or session', async () => {
    const w = await world()
    const stale = await w.change()
    w.clock.advance((w.stepUp.ttlSeconds + 1) * 1000)
    expect(await code(w.administration.disable(stale))).toBe('step-up.required')
    expect(await code(w.administration.disable({ ...(await w.change()), stepUpToken: '' }))).toBe(
      'step-up.required',
    )
    const once = await w.change()
    await w.administration.signOutEverywhere(once)
    expect(await code(w.administration.disable(once))).toBe('step-up.required')
    const other = await w.stepUp.issue({
      accountId: w.admin.accountId,
      purpose: 'delete-account',
      securityEpoch: 1,
      sessionBinding: w.admin.session.sessionHandle,
    })
    expect(await code(w.administration.disable({ ...(await w.change()), stepUpToken: other.reveal() }))).toBe(
      'step-up.required',
    )
    // A credential the *user* earned cannot be used by the administrator's session.
    const users = await w.stepUpToken(w.user.session)
    expect(await code(w.administration.disable({ ...(await w.change()), stepUpToken: users }))).toBe(
      'step-up.required',
    )
    expect((await w.accounts.getAccount(w.user.accountId))?.status).toBe('active')
    const types = (await w.log.listForAccount({ accountId: w.user.accountId, limit: 50 })).entries.map(
      (e) => e.type,
    )
    expect(types.filter((type) => type === ADMINISTRATION_EVENT_TYPES.disabled)).toEqual([])
  })

  it('needs a reason, refuses malformed and unknown targets without spending the credential, and never acts on itself', async () => {
    const w = await world()
    const change = await w.change()
    for (const reason of ['', '   ', 'x'.repeat(201), 'line\nbreak', 42]) {
      expect(await code(w.administration.disable({ ...change, reason }))).toBe(
        'administration.reason_required',
      )
    }
    expect(await code(w.administration.disable({ ...change, accountId: ' padded ' }))).toBe(
      'administration.invalid_input',
    )
    expect(await code(w.administration.disable({ ...change, accountId: 'nobody' }))).toBe(
      'administration.not_found',
    )
    expect(await code(w.administration.disable({ ...change, accountId: w.admin.accountId }))).toBe(
      'administration.self_target',
    )
    expect(await code(w.administration.deleteAccount({ ...change, accountId: w.admin.accountId }))).toBe(
      'administration.self_target',
    )
    // None of the refusals spent the credential.
    expect((await w.administration.disable(change)).account?.status).toBe('disabled')
  })

  it("revokes only the target's own API keys: a key of another account is not found and stays usable", async () => {
    const w = await world()
    const record = (keyId: string, ownerId: string) => ({
      keyId,
      ownerId,
      ownerKind: 'user' as const,
      digest: new Uint8Array(32).fill(7),
      pepperVersion: 'v1',
      restrictions: {},
      createdAt: new Date(w.clock()),
    })
    await w.apiKeyStore.create(record('keyofalice000001', w.user.accountId))
    await w.apiKeyStore.create(record('keyofroot0000001', w.admin.accountId))
    const forged = { ...(await w.change()), keyId: 'keyofroot0000001' }
    expect(await code(w.administration.revokeApiKey(forged))).toBe('administration.not_found')
    expect((await w.apiKeyStore.get('keyofroot0000001'))?.revokedAt).toBeUndefined()
    // The refusal did not spend the credential: the same change on the right key succeeds.
    await w.administration.revokeApiKey({ ...forged, keyId: 'keyofalice000001' })
    expect((await w.apiKeyStore.get('keyofalice000001'))?.revokedAt).toBeInstanceOf(Date)
    const view = await w.administration.view(w.user.accountId)
    expect(view?.apiKeys.map((key) => key.keyId)).toEqual(['keyofalice000001'])
    expect(view?.recentEvents[0]?.type).toBe(ADMINISTRATION_EVENT_TYPES.apiKeyRevoked)
    expect(view?.recentEvents[0]?.details.keyId).toBe('keyofalice000001')
  })

  it('signs every session out, and deletes the account', async () => {
    const w = await world()
    await w.administration.signOutEverywhere(await w.change())
    expect(await w.live(w.user.signIn)).toBe('invalid')
    const again = (await w.local.login(
      { username: 'alice', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    expect(await w.live(again)).toBe('authenticated')
    const deleted = await w.administration.deleteAccount(await w.change())
    expect(deleted.account).toBeNull()
    expect(await w.accounts.getAccount(w.user.accountId)).toBeNull()
    expect(await w.live(again)).toBe('invalid')
    const types = (await w.log.listForAccount({ accountId: w.user.accountId, limit: 10 })).entries.map(
      (e) => e.type,
    )
    expect(types).toContain(ADMINISTRATION_EVENT_TYPES.deleted)
    expect(types).toContain(ADMINISTRATION_EVENT_TYPES.signedOut)
  })

  it('requires a password reset: signs out and mails the verified primary address; refuses an account without one', async () => {
    const sent: string[] = []
    const w = await world({
      passwordReset: {
        requestPasswordReset: async (body) => {
          sent.push(body.email)
          return { flow: 'f' }
        },
      },
    })
    expect(await code(w.administration.requirePasswordReset(await w.change()))).toBe(
      'administration.no_address',
    )
    await w.accounts.addEmailAddress({
      accountId: w.user.accountId,
      address: 'alice@example.com',
      now: new Date(),
    })
    const [address] = await w.accounts.listEmailAddresses(w.user.accountId)
    expect(address?.verified).toBe(false)
    expect(await code(w.administration.requirePasswordReset(await w.change()))).toBe(
      'administration.no_address',
    )
    await w.accounts.verifyEmailAddress({
      accountId: w.user.accountId,
      address: 'alice@example.com',
      now: new Date(),
    })
    await w.administration.requirePasswordReset(await w.change())
    expect(sent).toEqual(['alice@example.com'])
    expect(await w.live(w.user.signIn)).toBe('invalid')
  })

  it('finds accounts by id, username, email and prefix', async () => {
    const w = await world()
    const by = async (query: Parameters<typeof w.administration.search>[0]) =>
      (await w.administration.search(query)).map((hit) => `${hit.matched}:${hit.username}`)
    expect(await by({ by: 'id', value: w.user.accountId })).toEqual(['id:alice'])
    expect(await by({ by: 'username', value: 'ALICE' })).toEqual(['username:alice'])
    expect(await by({ by: 'prefix', value: 'al' })).toEqual(['username:alice'])
    expect(await by({ by: 'prefix', value: 'zz' })).toEqual([])
    expect(await code(w.administration.search({ by: 'prefix', value: '' }))).toBe('local.invalid_input')
    expect(await code(w.administration.search({ by: 'nope' as 'id', value: 'x' }))).toBe(
      'local.invalid_input',
    )
  })

  it('records no secret: no password, session id, cookie or step-up credential in any audit entry', async () => {
    const w = await world()
    const change = await w.change()
    await w.administration.disable(change)
    await w.administration.enable(await w.change())
    await w.administration.signOutEverywhere(await w.change())
    const text = JSON.stringify(
      (await w.log.listForAccount({ accountId: w.user.accountId, limit: 50 })).entries,
    )
    const sessionId = cookiePair(w.user.signIn.setCookie).split('=')[1] as string
    const adminSessionId = cookiePair(w.admin.signIn.setCookie).split('=')[1] as string
    for (const secret of [PASSWORD, sessionId, adminSessionId, change.stepUpToken]) {
      expect(secret.length).toBeGreaterThan(8)
      expect(text).not.toContain(secret)
    }
  })

  it('answers administration.audit_unavailable when the log is down, after the change is made', async () => {
    const failing = new MemorySecurityLog()
    failing.append = async () => {
      throw new Error('log down')
    }
    const w = await world({ log: failing })
    expect(await code(w.administration.disable(await w.change()))).toBe('administration.audit_unavailable')
    // The change itself stands (repeating it is harmless); the caller was told its entry is missing.
    expect((await w.accounts.getAccount(w.user.accountId))?.status).toBe('disabled')
  })
})

describe('AccountAdministration with stores that write the audit entry in the change', () => {
  it('writes every entry with its change, never through a separate append', async () => {
    const log = new MemorySecurityLog()
    const appended: unknown[] = []
    log.append = async (entries) => {
      appended.push(...entries)
      throw new Error('append must not be used: the stores write the entries')
    }
    const w = await world({ inTransaction: log })
    expect(w.accounts.securityLogInTransaction).toBe(true)
    const issued = await w.apiKeyStore.create({
      keyId: KEY_ONE,
      ownerId: w.user.accountId,
      ownerKind: 'user',
      digest: new Uint8Array(32).fill(7),
      pepperVersion: 'v1',
      restrictions: { scopes: [] },
      createdAt: new Date(),
    })
    expect(issued).toBeUndefined()
    const outcomes = [
      await w.administration.disable(await w.change()),
      await w.administration.enable(await w.change()),
      await w.administration.signOutEverywhere(await w.change()),
      await w.administration.revokeApiKey({ ...(await w.change()), keyId: KEY_ONE }),
      await w.administration.deleteAccount(await w.change()),
    ]
    expect(appended).toEqual([])
    const page = await log.listForAccount({ accountId: w.user.accountId, limit: 20 })
    const byId = new Map(page.entries.map((entry) => [entry.id, entry.type]))
    expect(outcomes.map((outcome) => byId.get(outcome.auditId))).toEqual([
      ADMINISTRATION_EVENT_TYPES.disabled,
      ADMINISTRATION_EVENT_TYPES.enabled,
      ADMINISTRATION_EVENT_TYPES.signedOut,
      ADMINISTRATION_EVENT_TYPES.apiKeyRevoked,
      ADMINISTRATION_EVENT_TYPES.deleted,
    ])
    expect(w.apiKeyStore.get(KEY_ONE)).toBeUndefined()
    expect(await w.accounts.getAccount(w.user.accountId)).toBeNull()
  })

  it('writes no entry for a change that does not happen (the key of another account)', async () => {
    const log = new MemorySecurityLog()
    const w = await world({ inTransaction: log })
    await w.apiKeyStore.create({
      keyId: KEY_TWO,
      ownerId: w.admin.accountId,
      ownerKind: 'user',
      digest: new Uint8Array(32).fill(9),
      pepperVersion: 'v1',
      restrictions: { scopes: [] },
      createdAt: new Date(),
    })
    expect(await code(w.administration.revokeApiKey({ ...(await w.change()), keyId: KEY_TWO }))).toBe(
      'administration.not_found',
    )
    const page = await log.listForAccount({ accountId: w.user.accountId, limit: 20 })
    expect(page.entries.filter((entry) => entry.type.startsWith('administration.'))).toEqual([])
    expect(w.apiKeyStore.get(KEY_TWO)?.revokedAt).toBeUndefined()
  })

  it('refuses entries a memory store has no log for (never dropped silently)', async () => {
    const accounts = new MemoryAccountStore()
    expect(accounts.securityLogInTransaction).toBe(false)
    const log = new MemorySecurityLog()
    await expect(
      accounts.bumpSecurityEpoch({
        accountId: 'a-1',
        now: new Date(),
        securityLog: [
          {
            id: '0123456789abcdef0123456789abcdef',
            at: new Date(),
            type: 'administration.signed_out',
            accountId: 'a-1',
            actorId: null,
            reason: null,
            sessionHandle: null,
            clientAddress: null,
            clientAddressHash: null,
            device: null,
            details: {},
          },
        ],
      }),
    ).rejects.toMatchObject({ code: 'accounts.security_log_not_configured' })
    expect(log.size).toBe(0)
  })
})

describe('isAdministrator', () => {
  it('reads the role, or the capability, of the snapshot', () => {
    const admin = AuthorizationSnapshot.from({ roles: ['admin'] })
    const operator = AuthorizationSnapshot.from({ capabilities: ['accounts:administer'] })
    expect(isAdministrator(admin)).toBe(true)
    expect(isAdministrator(operator)).toBe(false)
    expect(isAdministrator(operator, { capability: 'accounts:administer' })).toBe(true)
    expect(isAdministrator(AuthorizationSnapshot.empty)).toBe(false)
    expect(() => isAdministrator(admin, { role: 'a', capability: 'b' } as never)).toThrow()
  })
})
