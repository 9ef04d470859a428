// The passkey and TOTP route tables as data: which routes a profile gets, the base prefix, and the order
// of checks inside a handler (a refused CSRF check or a missing step-up starts nothing). The HTTP
// behaviour runs in the adapter conformance suite against Express and Fastify.

import { MemoryAccountStore } from '@portcullis/core/accounts'
import type { SecurityContext } from '@portcullis/core/authorization'
import {
  generateLocalSigningKey,
  LocalAccounts,
  type LocalAuthProfile,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  SECURITY_EPOCH_ATTRIBUTE,
  SESSION_HANDLE_ATTRIBUTE,
} from '@portcullis/core/local-accounts'
import { type PasskeyCeremonies, PasskeyStepUp } from '@portcullis/core/passkeys'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { TotpEnrollmentStart, type TotpFactor } from '@portcullis/core/totp'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { describe, expect, it } from 'vitest'
import type { HttpExchange, NeutralRoute } from '../src/exchange/index.js'
import { passkeyRouteTable } from '../src/passkeys/index.js'
import { totpRouteTable } from '../src/totp/index.js'

const ORIGIN = 'https://app.example'
const transport = { header: 'portcullis-step-up', cookies: undefined }

async function localAccounts(profile: LocalAuthProfile) {
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  return new LocalAccounts({
    profile,
    accounts: new MemoryAccountStore(),
    ...(profile === 'tokens' ? {} : { sessions: new MemorySessionStore() }),
    ...(profile === 'session'
      ? {}
      : {
          refreshTokens: new MemoryRefreshTokenStore(),
          tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
        }),
    rateLimits: new MemoryRateLimitStore(),
    hasher: { hash: async () => 'x', verify: async () => false, needsRehash: () => false },
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
  })
}

/** Ceremonies that only count how often a ceremony was started. */
function countingCeremonies() {
  const started = { registration: 0, authentication: 0 }
  const refuse = () => Promise.reject(new Error('not in this test'))
  const ceremonies = {
    challengeTtlSeconds: 300,
    beginRegistration: () => {
      started.registration += 1
      return refuse()
    },
    beginAuthentication: () => {
      started.authentication += 1
      return refuse()
    },
    finishRegistration: refuse,
    finishAuthentication: refuse,
    list: async () => [],
    rename: async () => false,
    remove: async () => false,
  } as unknown as PasskeyCeremonies
  return { ceremonies, started }
}

async function passkeyTable(profile: LocalAuthProfile, base?: string) {
  const local = await localAccounts(profile)
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  const { ceremonies, started } = countingCeremonies()
  const passkeyStepUp = new PasskeyStepUp({ passkeys: ceremonies, stepUp })
  const routes = passkeyRouteTable(
    { passkeys: ceremonies, passkeyStepUp, stepUp, local, ...(base === undefined ? {} : { base }) },
    transport,
  )
  return { routes, started, stepUp }
}

const keys = (routes: readonly NeutralRoute[]) => routes.map((route) => `${route.method} ${route.path}`)

/** An exchange of a signed-in session (account `acct-1`) or of an anonymous caller. */
function exchange(options: { signedIn?: boolean; headers?: Record<string, string> } = {}): HttpExchange {
  const headers = options.headers ?? {}
  const security = (options.signedIn === true
    ? {
        principal: { kind: 'user', id: 'acct-1' },
        evidence: [{ attributes: { [SECURITY_EPOCH_ATTRIBUTE]: 0, [SESSION_HANDLE_ATTRIBUTE]: 'handle-1' } }],
      }
    : { principal: null, evidence: [] }) as unknown as SecurityContext
  return {
    method: 'POST',
    params: {},
    query: '',
    header: (name) => headers[name],
    cookieHeader: undefined,
    security,
    requestInfo: {},
    wantsJson: true,
    body: async () => ({}),
    appendSetCookie: () => {},
    native: undefined,
  }
}

const route = (routes: readonly NeutralRoute[], key: string) => {
  const found = routes.find((item) => `${item.method} ${item.path}` === key)
  if (found === undefined) throw new Error(`no route ${key}`)
  return found
}

describe('the passkey route table', () => {
  it('offers session sign-in to session profiles and token sign-in to token profiles only', async () => {
    const session = keys((await passkeyTable('session')).routes)
    const tokens = keys((await passkeyTable('tokens')).routes)
    const hybrid = keys((await passkeyTable('hybrid')).routes)
    expect(session).toContain('POST /auth/passkeys/sign-in')
    expect(session).not.toContain('POST /auth/passkeys/token')
    expect(tokens).toContain('POST /auth/passkeys/token')
    expect(tokens).not.toContain('POST /auth/passkeys/sign-in')
    expect(hybrid).toEqual(
      expect.arrayContaining(['POST /auth/passkeys/sign-in', 'POST /auth/passkeys/token']),
    )
  })

  it('puts every route under {base}/auth, documented, with local-account error rendering', async () => {
    const { routes } = await passkeyTable('hybrid', '/api')
    expect(routes).toHaveLength(10)
    for (const item of routes) {
      expect(item.path.startsWith('/api/auth/')).toBe(true)
      expect(item.errors).toBe('local')
      expect(item.options.openapi).toBeDefined()
    }
  })

  it('refuses a sign-in start without a CSRF anchor before any ceremony begins', async () => {
    const { routes, started } = await passkeyTable('session')
    const answer = await route(routes, 'POST /auth/passkeys/sign-in/options').handle(exchange())
    expect(answer.status).toBe(403)
    expect((answer.json as { code: string }).code).toBe('local.csrf_refused')
    expect(started.authentication).toBe(0)
  })

  it('refuses registration without a passkey-register step-up before any ceremony begins', async () => {
    const { routes, started } = await passkeyTable('session')
    const refused = await route(routes, 'POST /auth/passkeys/register/options')
      .handle(exchange({ signedIn: true }))
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(refused).toMatchObject({ status: 401, code: 'step-up.required' })
    expect(started.registration).toBe(0)
  })
})

describe('the TOTP route table', () => {
  it('enrolls only with a totp-enroll step-up, labelled by the account id when there is no username', async () => {
    const local = await localAccounts('session')
    const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
    const labels: string[] = []
    const totp = {
      beginEnrollment: async (request: { label: string }) => {
        labels.push(request.label)
        return new TotpEnrollmentStart('JBSWY3DPEHPK3PXP', 'otpauth://totp/x')
      },
    } as unknown as TotpFactor
    const routes = totpRouteTable({ totp, stepUp, local }, transport)
    expect(keys(routes)).toEqual([
      'GET /auth/totp',
      'POST /auth/totp/enroll',
      'POST /auth/totp/confirm',
      'POST /auth/totp/recovery-codes',
      'POST /auth/totp/disable',
    ])
    const enroll = route(routes, 'POST /auth/totp/enroll')
    await expect(enroll.handle(exchange({ signedIn: true }))).rejects.toMatchObject({
      code: 'step-up.required',
    })
    expect(labels).toEqual([])
    const credential = await stepUp.issue({
      accountId: 'acct-1',
      purpose: 'totp-enroll',
      securityEpoch: 0,
      sessionBinding: 'handle-1',
    })
    const headers = { 'portcullis-step-up': credential.reveal() }
    const answer = await enroll.handle(exchange({ signedIn: true, headers }))
    expect(answer.json).toEqual({ secret: 'JBSWY3DPEHPK3PXP', uri: 'otpauth://totp/x' })
    expect(labels).toEqual(['acct-1'])
    await expect(enroll.handle(exchange({ signedIn: true, headers }))).rejects.toMatchObject({
      code: 'step-up.required',
    })
  })
})
