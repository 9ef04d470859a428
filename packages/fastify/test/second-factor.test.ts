// Password sign-in of an account with TOTP on Fastify: the neutral route table answers 202 with a
// pending token, then the second-factor route of the transport finishes the sign-in (memory stores).
import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  type SecondFactorGate,
} from '@portcullis/core/local-accounts'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { MemoryTotpStore, TotpSecondFactor } from '@portcullis/core/totp'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { TotpService, totpCodeAt } from '@portcullis/totp'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
// The adapter suite's cheap scrypt hasher, by path (see passkeys' tests).
import { scryptHasher } from '../../conformance/src/adapters/account-world.js'
import { localAccountRoutes, portcullis } from '../src/index.js'

const ORIGIN = 'https://app.example'
const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }
const credentials = { username: 'alice', password: 'correct horse battery staple' }

/** RFC 4648 base32 (the TOTP secret as an authenticator app reads it) to bytes. */
function base32Bytes(text: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const char of text.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0')
  const bytes: number[] = []
  for (let at = 0; at + 8 <= bits.length; at += 8) bytes.push(Number.parseInt(bits.slice(at, at + 8), 2))
  return Uint8Array.from(bytes)
}

async function twoStepApp() {
  const rateLimits = new MemoryRateLimitStore()
  const gate: SecondFactorGate = {
    begin: (start) => second.begin(start),
    complete: (body, context) => second.complete(body, context),
  }
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  const local = new LocalAccounts({
    profile: 'hybrid',
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore(),
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits,
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    secondFactor: gate,
  })
  const totp = new TotpService({
    store: new MemoryTotpStore(),
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
    rateLimits,
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis',
  })
  const second = new TotpSecondFactor({ totp, pending: new MemoryStepUpStore() })
  const app = Fastify()
  await app.register(portcullis, { mechanisms: local.mechanisms })
  localAccountRoutes(app, { local })
  app.get('/api/me', async (request) => ({ id: request.security?.principal?.id }))
  const registered = await app.inject({ method: 'POST', url: '/auth/register', payload: credentials })
  expect(registered.statusCode).toBe(201)
  const accountId = registered.json().accountId as string
  const start = await totp.beginEnrollment({ accountId, label: 'alice' })
  const secret = base32Bytes(start.revealSecret())
  // Enrolled with the previous step's code, so the current one is still unused.
  await totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, Date.now() - 30_000) })
  return { app, code: () => totpCodeAt(secret, Date.now()) }
}

const post = (url: string, payload: object, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url,
  payload,
  headers,
})

describe('password sign-in with a second factor (Fastify)', () => {
  it('session: 202 with a pending token and no cookie, a cross-site second step is refused, then the code signs in', async () => {
    const { app, code } = await twoStepApp()
    const first = await app.inject(post('/auth/login', credentials, SAME_ORIGIN))
    expect(first.statusCode).toBe(202)
    expect(first.headers['cache-control']).toBe('no-store')
    expect(first.headers['set-cookie']).toBeUndefined()
    const pending = first.json()
    expect(pending).toEqual({
      secondFactorRequired: true,
      pendingToken: expect.stringMatching(/^[\w-]{43}$/),
      methods: ['totp', 'recovery_code'],
      expiresAt: expect.any(String),
    })
    const crossSite = await app.inject(
      post(
        '/auth/login/second-factor',
        { pendingToken: pending.pendingToken, code: code() },
        { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      ),
    )
    expect(crossSite.statusCode).toBe(403)
    expect(crossSite.json().code).toBe('local.csrf_refused')
    const done = await app.inject(
      post('/auth/login/second-factor', { pendingToken: pending.pendingToken, code: code() }, SAME_ORIGIN),
    )
    expect(done.statusCode).toBe(200)
    expect(String(done.headers['set-cookie'])).toMatch(/^__Host-portcullis-session=/)
  })

  it('tokens: 202, a wrong code is 401, then the token route returns a pair that authenticates', async () => {
    const { app, code } = await twoStepApp()
    const first = await app.inject(post('/auth/token', credentials))
    expect(first.statusCode).toBe(202)
    const { pendingToken } = first.json()
    const wrong = await app.inject(post('/auth/token/second-factor', { pendingToken, code: '000000' }))
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().code).toBe('totp.invalid_code')
    const pair = await app.inject(post('/auth/token/second-factor', { pendingToken, code: code() }))
    expect(pair.statusCode).toBe(200)
    const me = await app.inject({
      url: '/api/me',
      headers: { authorization: `Bearer ${pair.json().access_token}` },
    })
    expect(me.json()).toEqual({ id: expect.any(String) })
  })
})
