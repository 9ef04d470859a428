import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { MemoryAccountStore } from '../../src/accounts/memory-store.js'
import type { AuthenticationMechanism, CredentialSource } from '../../src/authentication/mechanism.js'
import type { AuthenticationOutcome } from '../../src/authentication/outcome.js'
import {
  blocklistPasswordScreen,
  generateLocalSigningKey,
  LocalAccounts,
  type LocalAccountsOptions,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  type PasswordHasher,
  type PasswordScreen,
  type SecurityEvent,
  type SessionSignIn,
  type TokenSignIn,
} from '../../src/local-accounts/index.js'

/**
 * Common passwords for core's own tests (core cannot ship or import the maintained list; the
 * `@portcullis/password-blocklist` tests cover that list): what the tests type as "a common password".
 */
export const TEST_COMMON_PASSWORDS: readonly string[] = Object.freeze([
  'password',
  'password1',
  '123456',
  '12345678',
  'qwerty',
  'qwerty123',
  'qwertyuiop',
  'iloveyou',
  'iloveyou2',
  'sunshine',
  'sunshine1',
  'letmein',
])

/** The offline screen over `TEST_COMMON_PASSWORDS`, as an application passes `commonPasswordScreen()`. */
export function testPasswordScreen(): PasswordScreen {
  return blocklistPasswordScreen({ passwords: TEST_COMMON_PASSWORDS })
}

/**
 * A real (if cheap) password hasher for tests: scrypt with a random salt, `$test-scrypt$N$salt$hash`.
 * `needsRehash` compares the cost with the configured one, so rehash-on-login can be exercised.
 */
export function scryptHasher(cost = 1024): PasswordHasher & { hashes: number; verifies: number } {
  const derive = (password: string, salt: Buffer, n: number) =>
    new Promise<Buffer>((resolve, reject) =>
      scrypt(password, salt, 32, { N: n, r: 8, p: 1 }, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    )
  const hasher = {
    hashes: 0,
    verifies: 0,
    async hash(password: string) {
      hasher.hashes += 1
      const salt = randomBytes(16)
      return `$test-scrypt$${cost}$${salt.toString('base64url')}$${(await derive(password, salt, cost)).toString('base64url')}`
    },
    async verify(encoded: string, password: string) {
      hasher.verifies += 1
      const [, kind, n, salt, hash] = encoded.split('$')
      if (kind !== 'test-scrypt' || n === undefined || salt === undefined || hash === undefined) return false
      const expected = Buffer.from(hash, 'base64url')
      const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n))
      return expected.length === actual.length && timingSafeEqual(expected, actual)
    },
    needsRehash(encoded: string) {
      return encoded.split('$')[2] !== String(cost)
    },
  }
  return hasher
}

/** A settable clock, starting at a fixed instant. */
export function testClock(start = Date.UTC(2031, 2, 4, 5, 6, 7)) {
  let now = start
  const clock = () => now
  return Object.assign(clock, {
    advance(ms: number) {
      now += ms
    },
  })
}

export const ORIGIN = 'https://app.example'
export const ISSUER = 'https://app.example'
export const AUDIENCE = 'https://app.example/api'
export const JWKS_URI = 'https://app.example/auth/jwks.json'

export interface LocalFixture {
  readonly local: LocalAccounts
  readonly accounts: MemoryAccountStore
  readonly sessions: MemorySessionStore
  readonly refreshTokens: MemoryRefreshTokenStore
  readonly rateLimits: MemoryRateLimitStore
  readonly hasher: ReturnType<typeof scryptHasher>
  readonly events: SecurityEvent[]
  readonly clock: ReturnType<typeof testClock>
  readonly ring: LocalSigningKeyRing
}

/** A `LocalAccounts` over memory stores, recording events; `overrides` replace any option. */
export async function localFixture(overrides: Partial<LocalAccountsOptions> = {}): Promise<LocalFixture> {
  const clock = testClock()
  const accounts = new MemoryAccountStore()
  const sessions = new MemorySessionStore()
  const refreshTokens = new MemoryRefreshTokenStore()
  const rateLimits = new MemoryRateLimitStore()
  const hasher = scryptHasher()
  const events: SecurityEvent[] = []
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date(clock()) }) })
  const local = new LocalAccounts({
    profile: 'hybrid',
    accounts,
    sessions,
    refreshTokens,
    rateLimits,
    hasher,
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: testPasswordScreen(),
    tokens: { ring, issuer: ISSUER, audience: AUDIENCE, jwksUri: JWKS_URI },
    events: (event) => {
      events.push(event)
    },
    clock,
    ...overrides,
  })
  return { local, accounts, sessions, refreshTokens, rateLimits, hasher, events, clock, ring }
}

/** A request view as an adapter builds it. */
export function requestSource(
  options: { method?: string; headers?: Record<string, string>; cookie?: string } = {},
): CredentialSource {
  const headers: Record<string, string> = { ...(options.headers ?? {}) }
  if (options.cookie !== undefined) headers.cookie = options.cookie
  return {
    header: (name) => headers[name.toLowerCase()],
    cookie: () => undefined,
    method: options.method ?? 'GET',
    path: '/',
  }
}

/** `name=value` of a `Set-Cookie` header value. */
export function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0] as string
}

/** What `mechanism` makes of `source`: its outcome's kind (`authenticated`, `none`, `invalid`, ...). */
export function outcomeKind(
  mechanism: AuthenticationMechanism | undefined,
  source: CredentialSource,
): Promise<AuthenticationOutcome['kind']> {
  return Promise.resolve(mechanism?.authenticate(source) as AuthenticationOutcome).then(
    (outcome) => outcome.kind,
  )
}

/** A request carrying the session cookie of `signIn`. */
export const sessionCookieSource = (
  signIn: SessionSignIn,
  method = 'GET',
  headers: Record<string, string> = {},
): CredentialSource => requestSource({ method, headers, cookie: cookiePair(signIn.setCookie) })

/** A request carrying the access token of `token` as a bearer credential. */
export const bearerSource = (token: TokenSignIn): CredentialSource =>
  requestSource({ headers: { authorization: `Bearer ${token.access_token}` } })
