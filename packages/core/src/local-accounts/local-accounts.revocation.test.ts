import { describe, expect, it } from 'vitest'
import {
  bearerSource as bearer,
  sessionCookieSource as cookie,
  outcomeKind as kind,
  localFixture,
  testPasswordScreen,
} from '../../test/support/local-accounts.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import { AUTH_TIME_ATTRIBUTE, authenticatedWithin } from '../authorization/user-authentication.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { LocalAccounts } from './local-accounts.js'
import type { SessionSignIn, TokenSignIn } from './sign-in.js'

const PASSWORD = 'correct horse battery staple'
const credentials = { username: 'alice', password: PASSWORD }

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isPortcullisError(error)) return error.code
    throw error
  }
  return 'no error'
}

describe('tokens', () => {
  it('verifies access tokens in process and rotates refresh tokens', async () => {
    const { local } = await localFixture()
    const bearerMechanism = local.mechanisms[1]
    await local.register(credentials)
    const first = (await local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    expect(first).toMatchObject({ token_type: 'Bearer', expires_in: 300 })
    expect(await kind(bearerMechanism, bearer(first))).toBe('authenticated')
    const outcome = (await bearerMechanism?.authenticate(bearer(first))) as AuthenticationOutcome
    expect(outcome).toMatchObject({
      principal: { kind: 'user' },
      evidence: { attributes: { familyId: first.familyId, securityEpoch: 1 } },
    })
    const second = await local.refresh({ refresh_token: first.refresh_token, grant_type: 'refresh_token' })
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect(second.familyId).toBe(first.familyId)
    expect(await kind(bearerMechanism, bearer(second))).toBe('authenticated')
    const forged = { ...first, access_token: `${first.access_token.slice(0, -4)}AAAA` }
    expect(await kind(bearerMechanism, bearer(forged))).toBe('invalid')
  })

  it('carries auth_time (the password sign-in, kept across refreshes) for authenticatedWithin', async () => {
    const { local, clock } = await localFixture()
    const bearerMechanism = local.mechanisms[1]
    await local.register(credentials)
    const signedInAt = Math.floor(clock() / 1000)
    const first = (await local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    const evidenceOf = async (token: TokenSignIn) => {
      const outcome = (await bearerMechanism?.authenticate(bearer(token))) as AuthenticationOutcome
      if (outcome.kind !== 'authenticated') throw new Error(`expected authenticated, got ${outcome.kind}`)
      return outcome
    }
    const granted = await evidenceOf(first)
    expect(granted.evidence.attributes?.[AUTH_TIME_ATTRIBUTE]).toBe(signedInAt)
    const guard = authenticatedWithin(300, { clock })
    const check = (outcome: Awaited<ReturnType<typeof evidenceOf>>) =>
      guard.check({ principal: outcome.principal, evidence: [outcome.evidence] } as never)
    expect(check(granted).granted).toBe(true)
    clock.advance(320_000)
    const refreshed = await local.refresh({ refresh_token: first.refresh_token })
    const later = await evidenceOf(refreshed)
    expect(later.evidence.attributes?.[AUTH_TIME_ATTRIBUTE]).toBe(signedInAt)
    expect(check(later)).toMatchObject({
      granted: false,
      denial: 'insufficient-user-authentication',
      challenge: { maxAge: 300 },
    })
  })

  it('a session carries its sign-in time as auth_time, so authenticatedWithin reads it as for tokens', async () => {
    const { local, clock } = await localFixture()
    const sessionMechanism = local.mechanisms[0]
    await local.register(credentials)
    const signedInAt = Math.floor(clock() / 1000)
    const signIn = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const read = async () => {
      const outcome = (await sessionMechanism?.authenticate(cookie(signIn))) as AuthenticationOutcome
      if (outcome.kind !== 'authenticated') throw new Error(`expected authenticated, got ${outcome.kind}`)
      return outcome
    }
    const granted = await read()
    expect(granted.evidence.credentialType).toBe('session')
    expect(granted.evidence.attributes?.[AUTH_TIME_ATTRIBUTE]).toBe(signedInAt)
    const guard = authenticatedWithin(300, { clock })
    expect(guard.check({ principal: granted.principal, evidence: [granted.evidence] } as never).granted).toBe(
      true,
    )
    clock.advance(320_000)
    const later = await read()
    expect(later.evidence.attributes?.[AUTH_TIME_ATTRIBUTE]).toBe(signedInAt)
    expect(guard.check({ principal: later.principal, evidence: [later.evidence] } as never).granted).toBe(
      false,
    )
  })

  it('a replayed refresh token revokes the whole family and reports it', async () => {
    const { local, events } = await localFixture()
    await local.register(credentials)
    const first = (await local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    const second = await local.refresh({ refresh_token: first.refresh_token })
    expect(await code(local.refresh({ refresh_token: first.refresh_token }))).toBe('local.refresh_invalid')
    expect(await code(local.refresh({ refresh_token: second.refresh_token }))).toBe('local.refresh_invalid')
    expect(events.filter((event) => event.type === 'refresh.reuse_detected')).toEqual([
      expect.objectContaining({ familyId: first.familyId }),
    ])
  })

  it('revocation (RFC 7009) ends the family and ignores unknown tokens', async () => {
    const { local } = await localFixture()
    await local.register(credentials)
    const pair = (await local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    await local.revokeToken({ token: 'A'.repeat(43) })
    await local.revokeToken({ token: 'not even a token ...' })
    await local.revokeToken({ token: pair.refresh_token, token_type_hint: 'refresh_token' })
    expect(await code(local.refresh({ refresh_token: pair.refresh_token }))).toBe('local.refresh_invalid')
  })
})

describe('password change', () => {
  it('ends every session, refresh family and access token of the account, and keeps the caller signed in', async () => {
    const { local, events } = await localFixture()
    const [sessionMechanism, bearerMechanism] = local.mechanisms
    const { accountId } = await local.register(credentials)
    const mine = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const other = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const pair = (await local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    const changed = await local.changePassword({
      accountId,
      body: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
      credentials: { sessionHandle: mine.handle },
    })
    expect(await kind(sessionMechanism, cookie(mine))).toBe('invalid')
    expect(await kind(sessionMechanism, cookie(other))).toBe('invalid')
    expect(await kind(bearerMechanism, bearer(pair))).toBe('invalid')
    expect(await code(local.refresh({ refresh_token: pair.refresh_token }))).toBe('local.refresh_invalid')
    expect(changed.session).toBeDefined()
    expect(await kind(sessionMechanism, cookie(changed.session as SessionSignIn))).toBe('authenticated')
    expect(await code(local.login(credentials, { transport: 'session' }))).toBe('local.invalid_credentials')
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['password.changed', 'epoch.bumped', 'session.revoked']),
    )
  })

  it('needs the current password', async () => {
    const { local } = await localFixture()
    const { accountId } = await local.register(credentials)
    const body = { currentPassword: 'not my password', newPassword: 'a brand new passphrase' }
    expect(await code(local.changePassword({ accountId, body, credentials: {} }))).toBe(
      'local.invalid_credentials',
    )
  })

  it('the admin reset ends everything too', async () => {
    const { local } = await localFixture()
    const [sessionMechanism] = local.mechanisms
    const { accountId } = await local.register(credentials)
    const mine = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await local.resetPassword(accountId, 'reset by the admin!')).toBe(true)
    expect(await kind(sessionMechanism, cookie(mine))).toBe('invalid')
    expect(await local.resetPassword('nobody', 'reset by the admin!')).toBe(false)
  })
})

describe('revocation bounds across instances', () => {
  it('another instance stops accepting a revoked session and an old-epoch token within the staleness setting', async () => {
    const a = await localFixture()
    const b = new LocalAccounts({
      profile: 'hybrid',
      accounts: a.accounts,
      sessions: a.sessions,
      refreshTokens: a.refreshTokens,
      rateLimits: a.rateLimits,
      hasher: a.hasher,
      publicOrigin: 'https://app.example',
      passwordScreen: testPasswordScreen(),
      tokens: {
        ring: a.ring,
        issuer: 'https://app.example',
        audience: 'https://app.example/api',
        jwksUri: 'https://app.example/auth/jwks.json',
      },
      clock: a.clock,
    })
    const { accountId } = await a.local.register(credentials)
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    const pair = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('authenticated')
    await a.local.logout({ accountId, credentials: { sessionHandle: session.handle } })
    await a.local.signOutEverywhere(accountId)
    // The revoking instance refuses at once; the other one may believe its cache for at most 5 s.
    expect(await kind(a.local.mechanisms[0], cookie(session))).toBe('invalid')
    expect(await kind(a.local.mechanisms[1], bearer(pair))).toBe('invalid')
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('authenticated')
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('authenticated')
    a.clock.advance(5_000)
    expect(await kind(b.mechanisms[0], cookie(session))).toBe('invalid')
    expect(await kind(b.mechanisms[1], bearer(pair))).toBe('invalid')
  })

  it('strict mode (staleness 0) reads the store on every request', async () => {
    const a = await localFixture({ revocation: { maxStalenessSeconds: 0 } })
    const b = await localFixture({
      revocation: { maxStalenessSeconds: 0 },
    })
    const shared = new LocalAccounts({
      profile: 'session',
      accounts: a.accounts,
      sessions: a.sessions,
      rateLimits: a.rateLimits,
      hasher: a.hasher,
      publicOrigin: 'https://app.example',
      passwordScreen: testPasswordScreen(),
      revocation: { maxStalenessSeconds: 0 },
      clock: a.clock,
    })
    void b
    const { accountId } = await a.local.register(credentials)
    const session = (await a.local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await kind(shared.mechanisms[0], cookie(session))).toBe('authenticated')
    await a.local.logout({ accountId, credentials: { sessionHandle: session.handle } })
    expect(await kind(shared.mechanisms[0], cookie(session))).toBe('invalid')
  })

  it('a token issued after a bump on another instance is accepted (a newer epoch reads the store)', async () => {
    const a = await localFixture()
    const { accountId } = await a.local.register(credentials)
    const old = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    expect(await kind(a.local.mechanisms[1], bearer(old))).toBe('authenticated')
    await a.accounts.bumpSecurityEpoch({ accountId, now: new Date(a.clock()) }) // "another instance"
    const fresh = (await a.local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    expect(await kind(a.local.mechanisms[1], bearer(fresh))).toBe('authenticated')
    expect(await kind(a.local.mechanisms[1], bearer(old))).toBe('invalid')
  })
})

describe('CSRF on cookie-authenticated unsafe requests', () => {
  it.each([
    [
      'cross-site Fetch Metadata',
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      'invalid',
    ],
    ['a foreign Origin', { origin: 'https://evil.example' }, 'invalid'],
    ['no headers and no token', {}, 'invalid'],
    [
      'same-origin Fetch Metadata',
      { 'sec-fetch-site': 'same-origin', origin: 'https://app.example' },
      'authenticated',
    ],
    ['the target Origin', { origin: 'https://app.example' }, 'authenticated'],
  ])('%s', async (_name, headers, expected) => {
    const { local, events } = await localFixture()
    await local.register(credentials)
    const session = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(await kind(local.mechanisms[0], cookie(session, 'POST', headers))).toBe(expected)
    if (expected === 'invalid') expect(events.at(-1)).toMatchObject({ type: 'csrf.refused', method: 'POST' })
  })

  it('accepts the synchronizer token from clients that send neither header', async () => {
    const { local } = await localFixture()
    await local.register(credentials)
    const session = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const headers = { 'x-csrf-token': session.csrfToken }
    expect(await kind(local.mechanisms[0], cookie(session, 'DELETE', headers))).toBe('authenticated')
    expect(await kind(local.mechanisms[0], cookie(session, 'DELETE', { 'x-csrf-token': 'wrong' }))).toBe(
      'invalid',
    )
  })
})

describe('establishLocalSignIn', () => {
  it('signs in an existing account by id, in the transport asked for', async () => {
    const { local } = await localFixture()
    const { establishLocalSignIn } = await import('./local-accounts.js')
    const { accountId } = await local.register(credentials)
    const session = await establishLocalSignIn(local, { accountId, transport: 'session' })
    expect(await kind(local.mechanisms[0], cookie(session as SessionSignIn))).toBe('authenticated')
    const tokens = await establishLocalSignIn(local, { accountId, transport: 'tokens' })
    expect(await kind(local.mechanisms[1], bearer(tokens as TokenSignIn))).toBe('authenticated')
    expect(await code(establishLocalSignIn(local, { accountId: 'nobody', transport: 'session' }))).toBe(
      'local.account_not_found',
    )
    expect(await code(establishLocalSignIn(local, { accountId }))).toBe('local.invalid_input')
  })
})
