import { type CryptoKey, exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import type { JWKSKeySelection, JWKSProvider } from '../jwks/jwks-provider.js'
import { OIDCError } from './errors.js'
import { type IdTokenRules, verifyIdToken } from './id-token.js'

const ISSUER = 'https://idp.example'
const NONCE = 'n'.repeat(43)
const START = new Date('2031-03-04T05:06:07Z')
const NOW = new Date(START.getTime() + 5000)
const NOW_S = Math.floor(NOW.getTime() / 1000)

let privateKey: CryptoKey
let otherKey: CryptoKey
let selection: JWKSKeySelection

const jwks: JWKSProvider = {
  register: () => undefined,
  selectKey: async () => selection,
  warmup: async () => undefined,
  close: async () => undefined,
}

function rules(overrides: Partial<IdTokenRules> = {}): IdTokenRules {
  return {
    issuer: { kind: 'exact', issuer: ISSUER },
    jwksIssuer: ISSUER,
    jwksUri: `${ISSUER}/jwks`,
    jwks,
    algorithms: ['RS256'],
    clientId: 'client-1',
    clockSkewSeconds: 30,
    maxLifetimeSeconds: 3600,
    ...overrides,
  }
}

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: 'alice',
    aud: 'client-1',
    nonce: NONCE,
    iat: NOW_S - 1,
    exp: NOW_S + 600,
    ...overrides,
  }
}

async function sign(
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
  key: CryptoKey = privateKey,
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT', ...header }).sign(key)
}

async function reason(token: string, given: Partial<IdTokenRules> = {}, nonce = NONCE): Promise<string> {
  try {
    await verifyIdToken(token, rules(given), { nonce, notBefore: START, now: NOW })
    return 'verified'
  } catch (error) {
    expect(error).toBeInstanceOf(OIDCError)
    return (error as OIDCError).reason
  }
}

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true })
  privateKey = pair.privateKey
  otherKey = (await generateKeyPair('RS256')).privateKey
  const publicKey = await importJWK({ ...(await exportJWK(pair.publicKey)), alg: 'RS256' }, 'RS256')
  selection = { kind: 'key', key: { kid: 'k1', alg: 'RS256', key: publicKey as CryptoKey } }
})

describe('verifyIdToken', () => {
  it('verifies a well-formed token and reads auth_time, acr and amr', async () => {
    const token = await sign(
      claims({ auth_time: NOW_S - 2, acr: 'gold', amr: ['pwd', 'otp'], email: 'a@x.test' }),
    )
    const verified = await verifyIdToken(token, rules(), { nonce: NONCE, notBefore: START, now: NOW })
    expect(verified).toMatchObject({
      issuer: ISSUER,
      subject: 'alice',
      authTime: NOW_S - 2,
      acr: 'gold',
      amr: ['pwd', 'otp'],
    })
    expect(verified.emailVerified).toBe(false)
  })

  it('compares the nonce exactly', async () => {
    expect(await reason(await sign(claims({ nonce: `${NONCE}x` })))).toBe('nonce-mismatch')
    expect(await reason(await sign(claims({ nonce: undefined })))).toBe('nonce-mismatch')
    expect(await reason(await sign(claims()), {}, 'm'.repeat(43))).toBe('nonce-mismatch')
  })

  it('checks issuer, audience and azp', async () => {
    expect(await reason(await sign(claims({ iss: 'https://evil.example' })))).toBe('id-token-issuer_mismatch')
    expect(await reason(await sign(claims({ aud: 'other' })))).toBe('id-token-audience_mismatch')
    expect(await reason(await sign(claims({ aud: ['client-1', 'other'] })))).toBe('id-token-azp-missing')
    expect(await reason(await sign(claims({ aud: ['client-1', 'other'], azp: 'other' })))).toBe(
      'id-token-azp',
    )
    expect(await reason(await sign(claims({ azp: 'other' })))).toBe('id-token-azp')
    expect(await reason(await sign(claims({ aud: ['client-1', 'other'], azp: 'client-1' })))).toBe('verified')
  })

  it('checks exp and iat with the skew, the lifetime, and iat not before the transaction', async () => {
    expect(await reason(await sign(claims({ iat: NOW_S - 40, exp: NOW_S - 31 })))).toBe('id-token-expired')
    expect(await reason(await sign(claims({ iat: NOW_S + 31 })))).toBe('id-token-issued_in_future')
    expect(await reason(await sign(claims({ iat: NOW_S - 10, exp: NOW_S + 3600 })))).toBe(
      'id-token-lifetime_too_long',
    )
    const beforeStart = Math.floor(START.getTime() / 1000) - 31
    expect(await reason(await sign(claims({ iat: beforeStart })))).toBe('id-token-issued-before-transaction')
  })

  it('refuses malformed auth_time, acr and amr', async () => {
    expect(await reason(await sign(claims({ auth_time: '123' })))).toBe('id-token-auth-time')
    expect(await reason(await sign(claims({ auth_time: 1.5 })))).toBe('id-token-auth-time')
    expect(await reason(await sign(claims({ acr: '' })))).toBe('id-token-acr')
    expect(await reason(await sign(claims({ amr: 'pwd' })))).toBe('id-token-amr')
    expect(await reason(await sign(claims({ amr: ['pwd', 'pwd'] })))).toBe('id-token-amr')
  })

  it('refuses headers that are not allowed', async () => {
    expect(await reason(await sign(claims(), { typ: 'at+jwt' }))).toBe('id-token-typ')
    expect(await reason(await sign(claims(), { typ: undefined }))).toBe('verified')
    expect(await reason(await sign(claims(), { jku: 'https://evil.example/jwks' }))).toBe('id-token-header')
    expect(await reason(await sign(claims(), { kid: undefined }))).toBe('id-token-kid')
    expect(await reason(await sign(claims()), { algorithms: ['ES256'] })).toBe('id-token-alg')
    const unsigned = `${Buffer.from('{"alg":"none","kid":"k1"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`
    expect(await reason(unsigned)).not.toBe('verified')
  })

  it('refuses a signature by another key and reports a JWKS outage as unavailable', async () => {
    expect(await reason(await sign(claims(), {}, otherKey))).toBe('id-token-signature')
    const saved = selection
    selection = { kind: 'invalid', reason: 'jwks.unknown_kid' }
    expect(await reason(await sign(claims()))).toBe('id-token-key')
    selection = { kind: 'unavailable', reason: 'jwks.fetch_failed' }
    const error = await verifyIdToken(await sign(claims()), rules(), {
      nonce: NONCE,
      notBefore: START,
      now: NOW,
    }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'oidc.provider.unavailable', retryable: false })
    selection = saved
  })

  it('tenant template: iss must be the template filled with the token tid', async () => {
    const template = { kind: 'tenant-template', template: 'https://login.example/{tenantid}/v2.0' } as const
    const tid = '11111111-1111-4111-8111-111111111111'
    const ok = claims({ tid, iss: `https://login.example/${tid}/v2.0` })
    expect(await reason(await sign(ok), { issuer: template })).toBe('verified')
    expect(
      await reason(
        await sign({ ...ok, iss: 'https://login.example/22222222-2222-4222-8222-222222222222/v2.0' }),
        {
          issuer: template,
        },
      ),
    ).toBe('id-token-issuer_mismatch')
    expect(await reason(await sign({ ...ok, tid: 'not-a-guid' }), { issuer: template })).toBe(
      'id-token-tenant',
    )
    expect(
      await reason(await sign(ok), {
        issuer: { ...template, allowedTenants: new Set(['22222222-2222-4222-8222-222222222222']) },
      }),
    ).toBe('id-token-tenant')
  })
})
