import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  generateLocalSigningKey,
  LocalAccounts,
  type LocalAccountsOptions,
  type LocalAuthProfile,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  type SecurityEvent,
} from '@portcullis/core/local-accounts'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import express, { type Express } from 'express'
import type { Response } from 'supertest'
import { scryptHasher, sessionLocalAccounts } from '../../../conformance/src/adapters/account-world.js'
import { createSecurity, localAccountRoutes } from '../../src/index.js'

export const ORIGIN = 'https://app.example'
export const PASSWORD = 'correct horse battery staple'

/** A real, cheap password hasher (scrypt, N=1024): the adapter suite's, by path (see passkeys' tests). */
/** Session-profile local accounts over the given stores (open registration, that hasher): the adapter suite's. */
export { scryptHasher, sessionLocalAccounts }

export interface LocalApp {
  readonly app: Express
  readonly local: LocalAccounts
  readonly accounts: MemoryAccountStore
  readonly rateLimits: MemoryRateLimitStore
  readonly events: SecurityEvent[]
}

/**
 * A real Express app: `createSecurity` with the profile's mechanisms, the local-account routes, and
 * `GET/POST /api/me` accepting any local mechanism.
 */
export async function localApp(
  profile: LocalAuthProfile,
  overrides: Partial<LocalAccountsOptions> = {},
  routeOptions: { maxBodyBytes?: number } = {},
): Promise<LocalApp> {
  const accounts = new MemoryAccountStore()
  const rateLimits = new MemoryRateLimitStore()
  const events: SecurityEvent[] = []
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  const local = new LocalAccounts({
    profile,
    accounts,
    sessions: new MemorySessionStore(),
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits,
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: {
      ring,
      issuer: ORIGIN,
      audience: `${ORIGIN}/api`,
      jwksUri: `${ORIGIN}/auth/jwks.json`,
    },
    events: (event) => {
      events.push(event)
    },
    ...overrides,
  })
  const security = createSecurity({
    mechanisms: local.mechanisms,
    openapi: { info: { title: 'local accounts', version: '1' } },
  })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security, ...routeOptions }))
  const api = security.router({ prefix: '/api' })
  const me = (request: express.Request, response: express.Response) => {
    response.json({ id: request.security?.principal?.id })
  }
  api.get('/me', me)
  api.post('/me', me)
  app.use(api)
  return { app, local, accounts, rateLimits, events }
}

/** `name=value` pairs of every `Set-Cookie` of a response, by name (a cookie cleared with `Max-Age=0` is absent). */
export function cookiesOf(response: Response): Map<string, string> {
  const jar = new Map<string, string>()
  const header = response.headers['set-cookie'] as unknown
  const lines = Array.isArray(header) ? (header as string[]) : typeof header === 'string' ? [header] : []
  for (const line of lines) {
    const pair = line.split(';')[0] ?? ''
    const name = pair.slice(0, pair.indexOf('='))
    if (/Max-Age=0/.test(line)) jar.set(name, '')
    else jar.set(name, pair)
  }
  return jar
}

export const SESSION_COOKIE = '__Host-portcullis-session'
export const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }
