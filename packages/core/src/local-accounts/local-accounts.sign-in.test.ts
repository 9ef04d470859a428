import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import {
  cookiePair,
  localFixture,
  ORIGIN,
  requestSource,
  scryptHasher,
} from '../../test/support/local-accounts.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { digestOpaqueToken } from './opaque-token.js'
import { boundedPasswordHasher } from './passwords/bounded-password-hasher.js'
import type { PasswordHasher } from './passwords/password.js'
import { MemorySessionStore } from './sessions/memory-session-store.js'
import type { SessionSignIn, TokenSignIn } from './sign-in.js'

const PASSWORD = 'correct horse battery staple'
const credentials = { username: 'alice', password: PASSWORD }

async function rejection(
  promise: Promise<unknown>,
): Promise<{ code: string; errorClass: string; message: string }> {
  try {
    await promise
  } catch (error) {
    if (!isPortcullisError(error)) throw error
    return error
  }
  throw new Error('expected a rejection')
}

async function outcome(value: AuthenticationOutcome | Promise<AuthenticationOutcome>) {
  return value
}

describe('sign-in with a session', () => {
  it('stores only a digest, sets a __Host- cookie and hides the id from inspect and JSON', async () => {
    const { local, sessions } = await localFixture()
    await local.register(credentials)
    const signIn = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    expect(signIn.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(signIn.setCookie).toBe(
      `__Host-portcullis-session=${signIn.sessionId}; Path=/; HttpOnly; Secure; SameSite=Lax`,
    )
    expect(inspect(sessions)).toContain('sessions: 1')
    expect(
      await sessions.get(digestOpaqueToken(signIn.sessionId), new Date(Date.UTC(2031, 2, 4, 5, 6, 8))),
    ).not.toBeNull()
    expect(inspect(signIn)).not.toContain(signIn.sessionId)
    expect(JSON.stringify(signIn)).not.toContain(signIn.sessionId)
    expect(JSON.stringify(signIn)).not.toContain(signIn.csrfToken)
  })

  it('authenticates the cookie, refuses unknown and malformed ones and ignores requests without it', async () => {
    const { local } = await localFixture()
    const [mechanism] = local.mechanisms
    await local.register(credentials)
    const signIn = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const granted = await outcome(
      mechanism?.authenticate(
        requestSource({ cookie: cookiePair(signIn.setCookie) }),
      ) as AuthenticationOutcome,
    )
    expect(granted).toMatchObject({
      kind: 'authenticated',
      principal: { kind: 'user' },
      evidence: { mechanism: 'session' },
    })
    expect(await outcome(mechanism?.authenticate(requestSource()) as AuthenticationOutcome)).toEqual({
      kind: 'none',
    })
    const unknown = `__Host-portcullis-session=${'A'.repeat(43)}`
    expect(
      (await outcome(mechanism?.authenticate(requestSource({ cookie: unknown })) as AuthenticationOutcome))
        .kind,
    ).toBe('invalid')
    const twice = `${cookiePair(signIn.setCookie)}; ${cookiePair(signIn.setCookie)}`
    expect(
      (await outcome(mechanism?.authenticate(requestSource({ cookie: twice })) as AuthenticationOutcome))
        .kind,
    ).toBe('invalid')
  })

  it('rotates the id at sign-in: the id the browser came with is deleted in the same step (no fixation)', async () => {
    const { local } = await localFixture()
    const [mechanism] = local.mechanisms
    await local.register(credentials)
    const planted = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const fresh = (await local.login(credentials, {
      transport: 'session',
      replacesSessionId: planted.sessionId,
    })) as SessionSignIn
    expect(fresh.sessionId).not.toBe(planted.sessionId)
    const old = await outcome(
      mechanism?.authenticate(
        requestSource({ cookie: cookiePair(planted.setCookie) }),
      ) as AuthenticationOutcome,
    )
    expect(old.kind).toBe('invalid')
    const rotated = await local.rotateSession(fresh.sessionId)
    expect(rotated.sessionId).not.toBe(fresh.sessionId)
    expect(
      (
        await outcome(
          mechanism?.authenticate(
            requestSource({ cookie: cookiePair(fresh.setCookie) }),
          ) as AuthenticationOutcome,
        )
      ).kind,
    ).toBe('invalid')
    expect(
      (
        await outcome(
          mechanism?.authenticate(
            requestSource({ cookie: cookiePair(rotated.setCookie) }),
          ) as AuthenticationOutcome,
        )
      ).kind,
    ).toBe('authenticated')
  })

  it('ends a session after its idle timeout, and sliding renewal writes at most once per interval', async () => {
    const { local, sessions, clock } = await localFixture({
      session: { idleTimeoutSeconds: 600, renewIntervalSeconds: 60 },
    })
    let touches = 0
    const touch = sessions.touch.bind(sessions)
    sessions.touch = async (request) => {
      touches += 1
      return touch(request)
    }
    const [mechanism] = local.mechanisms
    await local.register(credentials)
    const signIn = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const source = requestSource({ cookie: cookiePair(signIn.setCookie) })
    for (let minute = 0; minute < 20; minute += 1) {
      clock.advance(30_000)
      for (let i = 0; i < 5; i += 1)
        expect((await outcome(mechanism?.authenticate(source) as AuthenticationOutcome)).kind).toBe(
          'authenticated',
        )
      await new Promise((resolve) => setImmediate(resolve))
    }
    // 10 minutes of use, far past the 600 s idle timeout: alive, with one write per 60 s at most.
    expect(touches).toBeGreaterThan(0)
    expect(touches).toBeLessThanOrEqual(10)
    clock.advance(601_000)
    expect((await outcome(mechanism?.authenticate(source) as AuthenticationOutcome)).kind).toBe('invalid')
  })
})

describe('the unknown-account path', () => {
  it('answers exactly like a wrong password and runs one verification either way', async () => {
    const { local, hasher, events } = await localFixture()
    await local.register(credentials)
    const before = hasher.verifies
    const wrong = await rejection(
      local.login({ username: 'alice', password: 'wrong password!' }, { transport: 'session' }),
    )
    const unknown = await rejection(
      local.login({ username: 'mallory', password: 'wrong password!' }, { transport: 'session' }),
    )
    expect(hasher.verifies - before).toBe(2)
    expect({ code: unknown.code, message: unknown.message, errorClass: unknown.errorClass }).toEqual({
      code: wrong.code,
      message: wrong.message,
      errorClass: wrong.errorClass,
    })
    expect(wrong.code).toBe('local.invalid_credentials')
    expect(
      events
        .filter((event) => event.type === 'login.failed')
        .map((event) => 'reason' in event && event.reason),
    ).toEqual(['bad_password', 'unknown_account'])
  })
})

describe('rate limits before hashing', () => {
  it('refuses the account after its limit without hashing, with Retry-After and an event', async () => {
    const { local, hasher, events } = await localFixture({
      rateLimit: { perAccount: { limit: 3, windowSeconds: 60 } },
    })
    await local.register(credentials)
    for (let i = 0; i < 3; i += 1)
      await rejection(local.login({ ...credentials, password: 'not the password' }, { transport: 'session' }))
    const verifies = hasher.verifies
    const limited = (await rejection(local.login(credentials, { transport: 'session' }))) as {
      code: string
      retryAfterSeconds?: number
    }
    expect(limited.code).toBe('local.rate_limited')
    expect(limited.retryAfterSeconds).toBe(60)
    expect(hasher.verifies).toBe(verifies)
    expect(events.at(-1)).toMatchObject({ type: 'login.rate_limited', retryAfterSeconds: 60 })
  })

  it('counts per client address across usernames, behind trusted proxies by the rightmost untrusted hop', async () => {
    const { local } = await localFixture({
      rateLimit: { perAddress: { limit: 2, windowSeconds: 60 } },
      trustedProxies: ['10.0.0.0/8'],
    })
    const via = (client: string) => ({ peerAddress: '10.0.0.5', forwardedFor: `6.6.6.6, ${client}` })
    await rejection(
      local.login({ username: 'a', password: 'x' }, { transport: 'session', request: via('203.0.113.9') }),
    )
    await rejection(
      local.login({ username: 'b', password: 'x' }, { transport: 'session', request: via('203.0.113.9') }),
    )
    const spoofed = { peerAddress: '10.0.0.5', forwardedFor: '1.2.3.4, 203.0.113.9' }
    expect(
      (
        await rejection(
          local.login({ username: 'c', password: 'x' }, { transport: 'session', request: spoofed }),
        )
      ).code,
    ).toBe('local.rate_limited')
    expect(
      (
        await rejection(
          local.login(
            { username: 'd', password: 'x' },
            { transport: 'session', request: via('203.0.113.10') },
          ),
        )
      ).code,
    ).toBe('local.invalid_credentials')
  })
})

describe('the password re-check of a signed-in account', () => {
  it('is limited per account like sign-in, before any hashing, and a success resets the count', async () => {
    const { local, hasher, events } = await localFixture({
      rateLimit: { perAccount: { limit: 3, windowSeconds: 60 } },
    })
    const { accountId } = await local.register(credentials)
    await local.confirmPassword({ accountId, password: PASSWORD })
    for (let i = 0; i < 3; i += 1) {
      expect((await rejection(local.confirmPassword({ accountId, password: 'not the password' }))).code).toBe(
        'local.invalid_credentials',
      )
    }
    const verifies = hasher.verifies
    const limited = (await rejection(local.confirmPassword({ accountId, password: PASSWORD }))) as {
      code: string
      retryAfterSeconds?: number
    }
    expect(limited.code).toBe('local.rate_limited')
    expect(limited.retryAfterSeconds).toBe(60)
    expect(hasher.verifies).toBe(verifies)
    expect(events.at(-1)).toMatchObject({ type: 'login.rate_limited', retryAfterSeconds: 60 })
    // The same counter as sign-in: the account is limited there too.
    expect((await rejection(local.login(credentials, { transport: 'session' }))).code).toBe(
      'local.rate_limited',
    )
  })

  it('is limited per client address, and refuses an account that is gone', async () => {
    const { local } = await localFixture({ rateLimit: { perAddress: { limit: 1, windowSeconds: 60 } } })
    const { accountId } = await local.register(credentials)
    const request = { peerAddress: '203.0.113.9' }
    await rejection(local.confirmPassword({ accountId, password: 'nope nope', request }))
    expect((await rejection(local.confirmPassword({ accountId, password: PASSWORD, request }))).code).toBe(
      'local.rate_limited',
    )
    expect((await rejection(local.confirmPassword({ accountId: 'gone', password: PASSWORD }))).code).toBe(
      'local.sign_in_required',
    )
  })
})

describe('bad input', () => {
  it.each([
    [
      'a username with a zero-width joiner',
      { username: 'al\u200dice', password: PASSWORD },
      'local.invalid_username',
    ],
    ['a number for a password', { username: 'alice', password: 12345678 }, 'local.invalid_request'],
    ['an unknown member', { username: 'alice', password: PASSWORD, admin: true }, 'local.invalid_request'],
    ['an array', [credentials], 'local.invalid_request'],
    [
      'a password over the byte limit',
      { username: 'alice', password: 'é'.repeat(600) },
      'local.invalid_password',
    ],
  ])('%s is refused and writes nothing', async (_name, body, code) => {
    const { local, rateLimits, hasher } = await localFixture()
    expect((await rejection(local.login(body, { transport: 'session' }))).code).toBe(code)
    expect((await rejection(local.register(body))).code).toBe(code)
    expect(inspect(rateLimits)).toContain('keys: 0')
    expect(hasher.hashes + hasher.verifies).toBe(0)
  })

  it('folds compatibility and case forms of a username to one account', async () => {
    const { local } = await localFixture()
    await local.register({ username: 'ＡＬＩＣＥ', password: PASSWORD })
    expect((await rejection(local.register({ username: 'alice', password: PASSWORD }))).code).toBe(
      'local.username_taken',
    )
    expect(
      (await local.login({ username: ' Alice ', password: PASSWORD }, { transport: 'session' })).transport,
    ).toBe('session')
  })
})

describe('registration policies', () => {
  it('closed refuses everyone; invite-only takes a single-use code', async () => {
    const closed = await localFixture({ registration: 'closed' })
    expect((await rejection(closed.local.register(credentials))).code).toBe('local.registration_closed')
    const { local } = await localFixture({ registration: 'invite-only' })
    expect((await rejection(local.register(credentials))).code).toBe('local.registration_closed')
    expect((await rejection(local.register({ ...credentials, inviteCode: 'A'.repeat(43) }))).code).toBe(
      'local.invite_invalid',
    )
    const invite = await local.issueInvite()
    await local.register({ ...credentials, inviteCode: invite.code })
    expect(
      (await rejection(local.register({ username: 'bob', password: PASSWORD, inviteCode: invite.code })))
        .code,
    ).toBe('local.invite_invalid')
  })
})

describe('passwords', () => {
  it('re-hashes on sign-in when the parameters changed, keeping the password', async () => {
    const first = await localFixture()
    await first.local.register(credentials)
    const stronger = scryptHasher(2048)
    const second = await localFixture({ accounts: first.accounts, hasher: stronger })
    await second.local.login(credentials, { transport: 'session' })
    const account = await first.accounts.findPassword({ username: 'alice' })
    expect(account?.passwordHash.split('$')[2]).toBe('2048')
    expect(account?.securityEpoch).toBe(1)
    await second.local.login(credentials, { transport: 'session' })
  })

  it('answers 503 with Retry-After when the hashing queue is full', async () => {
    let release: () => void = () => {}
    const slow: PasswordHasher = {
      hash: async () => '$slow$',
      verify: () => new Promise((resolve) => (release = () => resolve(false))),
      needsRehash: () => false,
    }
    const { local } = await localFixture({
      hasher: boundedPasswordHasher(slow, { concurrency: 1, maxQueued: 0, retryAfterSeconds: 2 }),
    })
    const first = local.login({ username: 'a', password: 'whatever1' }, { transport: 'session' })
    await new Promise((resolve) => setImmediate(resolve))
    const busy = (await rejection(
      local.login({ username: 'b', password: 'whatever2' }, { transport: 'session' }),
    )) as {
      code: string
      errorClass: string
      retryAfterSeconds?: number
    }
    expect(busy).toMatchObject({
      code: 'local.hashing_busy',
      errorClass: 'unavailable',
      retryAfterSeconds: 2,
    })
    release()
    await rejection(first)
  })
})

describe('security events', () => {
  it('never carry a password, session id or token, and a failing sink fails nothing', async () => {
    const { local, events } = await localFixture()
    await local.register(credentials)
    const session = (await local.login(credentials, { transport: 'session' })) as SessionSignIn
    const tokens = (await local.login(credentials, { transport: 'tokens' })) as TokenSignIn
    await local.refresh({ refresh_token: tokens.refresh_token })
    await rejection(local.refresh({ refresh_token: tokens.refresh_token }))
    const text = JSON.stringify(events)
    for (const secret of [
      PASSWORD,
      session.sessionId,
      tokens.refresh_token,
      tokens.access_token,
      session.csrfToken,
    ]) {
      expect(text).not.toContain(secret)
    }
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['login.succeeded', 'session.created', 'refresh.reuse_detected']),
    )
    const throwing = await localFixture({
      events: () => {
        throw new Error('sink down')
      },
    })
    await throwing.local.register(credentials)
    expect((await throwing.local.login(credentials, { transport: 'session' })).transport).toBe('session')
  })
})

describe('configuration', () => {
  it('refuses a profile without its stores, unknown options and a non-http origin', async () => {
    const { accounts, rateLimits, hasher, local } = await localFixture()
    const base = { accounts, rateLimits, hasher, publicOrigin: ORIGIN, passwordScreen: local.passwordScreen }
    const { LocalAccounts } = await import('./local-accounts.js')
    expect(() => new LocalAccounts({ ...base, profile: 'session' })).toThrow(/sessions store/)
    expect(() => new LocalAccounts({ ...base, profile: 'tokens' })).toThrow(/tokens options/)
    expect(() => new LocalAccounts({ ...base, profile: 'session', sessionz: 1 } as never)).toThrow(
      /unknown option sessionz/,
    )
    expect(() => new LocalAccounts({ ...base, profile: 'sessions' as never })).toThrow(/profile/)
    expect(
      () => new LocalAccounts({ ...base, profile: 'hybrid', publicOrigin: 'ftp://x' } as never),
    ).toThrow()
  })

  it('refuses to run without a password screen: strict by default, never unscreened by omission', async () => {
    const { accounts, sessions, rateLimits, hasher } = await localFixture()
    const { LocalAccounts } = await import('./local-accounts.js')
    const unscreened = { profile: 'session', accounts, sessions, rateLimits, hasher, publicOrigin: ORIGIN }
    let thrown: unknown
    try {
      new LocalAccounts(unscreened as never)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({
      code: 'local.invalid_config',
      option: 'LocalAccounts.passwordScreen',
      message: expect.stringContaining('commonPasswordScreen() of @portcullis/password-blocklist'),
    })
    expect(() => new LocalAccounts({ ...unscreened, passwordScreen: undefined } as never)).toThrow(
      /passwordScreen is required/,
    )
    expect(() => new LocalAccounts({ ...unscreened, passwordScreen: 'strict' } as never)).toThrow(
      /passwordScreen must be/,
    )
  })
})

describe('a session store that fails', () => {
  /** A memory session store whose every operation rejects while `down`, with `error`. */
  function failingSessions(error: () => Error) {
    const store = new MemorySessionStore()
    const state = { down: false }
    const proxy = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) =>
          state.down ? Promise.reject(error()) : (value as (...a: unknown[]) => unknown).apply(target, args)
      },
    })
    return { store: proxy, state }
  }

  it.each([
    [
      'with a retry hint',
      () => Object.assign(new Error('db down'), { retryAfterSeconds: 2 }),
      { retryAfterSeconds: 2 },
    ],
    ['without one', () => new Error('db down'), {}],
  ])('is unavailable (never invalid), %s passed on as it is', async (_name, error, hint) => {
    const { store, state } = failingSessions(error)
    const { local } = await localFixture({ sessions: store })
    const [mechanism] = local.mechanisms
    state.down = true
    const unknown = `__Host-portcullis-session=${'A'.repeat(43)}`
    const answer = await outcome(
      mechanism?.authenticate(requestSource({ cookie: unknown })) as AuthenticationOutcome,
    )
    expect(answer).toEqual({ kind: 'unavailable', reason: 'session: store failed', ...hint })
  })
})
