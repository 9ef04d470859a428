import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  generateLocalSigningKey,
  LocalAccounts,
  type LocalAccountsOptions,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import type { AdapterScenario } from './scenario.js'

export const ORIGIN = 'https://app.example'
export const PASSWORD = 'correct horse battery staple'
export const SESSION_COOKIE = '__Host-portcullis-session'
export const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }
export const CROSS_SITE = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }
/** The body limit of the application's own routes in the account world (`AdapterScenario.bodyLimit`). */
export const OWN_BODY_LIMIT = 4096
/** The default body limit of the generated local-account routes. */
export const LOCAL_BODY_LIMIT = 16384

/** A real, cheap password hasher (scrypt, N=1024): the cases exercise hashing without argon2's cost. */
export function scryptHasher(): PasswordHasher {
  const derive = (password: string, salt: Buffer) =>
    new Promise<Buffer>((resolve, reject) =>
      scrypt(password, salt, 32, { N: 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
    )
  return {
    async hash(password) {
      const salt = randomBytes(16)
      return `$scrypt$${salt.toString('base64url')}$${(await derive(password, salt)).toString('base64url')}`
    },
    async verify(encoded, password) {
      const [, kind, salt, hash] = encoded.split('$')
      if (kind !== 'scrypt' || salt === undefined || hash === undefined) return false
      const expected = Buffer.from(hash, 'base64url')
      const actual = await derive(password, Buffer.from(salt, 'base64url'))
      return expected.length === actual.length && timingSafeEqual(expected, actual)
    },
    needsRehash: () => false,
  }
}

/**
 * The account world: real local accounts (hybrid profile: session cookie and tokens, memory stores),
 * the generated routes, and `GET`/`POST /me` accepting any local mechanism, with bodies up to
 * `OWN_BODY_LIMIT` bytes. `overrides` sets the rate limits and trusted proxies.
 */
export async function accountWorld(
  overrides: Pick<LocalAccountsOptions, 'rateLimit' | 'trustedProxies'> = {},
): Promise<AdapterScenario> {
  const local = await hybridLocalAccounts(overrides)
  return { ...meScenario(local, 'Accounts'), bodyLimit: OWN_BODY_LIMIT }
}

/**
 * Local accounts of the hybrid profile (session cookie and tokens) over fresh memory stores: open
 * registration, the scrypt hasher, the common-password screen; `extra` sets or replaces the rest (the
 * stores, events, a clock, a second factor, the sign-in keys).
 */
export async function hybridLocalAccounts(
  extra: Partial<
    Pick<
      LocalAccountsOptions,
      | 'accounts'
      | 'sessions'
      | 'rateLimits'
      | 'rateLimit'
      | 'trustedProxies'
      | 'events'
      | 'signInWith'
      | 'secondFactor'
      | 'clock'
    >
  > = {},
): Promise<LocalAccounts> {
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  return new LocalAccounts({
    profile: 'hybrid',
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore(),
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits: new MemoryRateLimitStore(),
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    ...extra,
  })
}

/**
 * Local accounts of the session profile over the given account and session stores: open registration,
 * the scrypt hasher, the common-password screen; `extra` adds what a world needs (events, a clock).
 */
export function sessionLocalAccounts(
  extra: Pick<LocalAccountsOptions, 'accounts' | 'sessions'> &
    Partial<Pick<LocalAccountsOptions, 'events' | 'rateLimit' | 'clock'>>,
): LocalAccounts {
  return new LocalAccounts({
    profile: 'session',
    rateLimits: new MemoryRateLimitStore(),
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    ...extra,
  })
}

/** The security of `local`'s mechanisms and GET and POST `/me`, answering the principal's id. */
export function meScenario(
  local: LocalAccounts,
  title: string,
): Pick<AdapterScenario, 'security' | 'routes' | 'local'> {
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const me = { auth: anyOf(...names) }
  const respond = ({ security }: { security: { principal: { id: string } | null } }) => ({
    id: security.principal?.id ?? null,
  })
  return {
    security: { mechanisms: local.mechanisms, openapi: { info: { title, version: '1' } } },
    routes: [
      { method: 'GET', path: '/me', options: me, respond },
      { method: 'POST', path: '/me', options: me, respond },
    ],
    local,
  }
}
