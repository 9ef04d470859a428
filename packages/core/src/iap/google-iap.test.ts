import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { headerSource } from '../../test/support/credential-source.js'
import { type JwksServer, startJwksServer } from '../../test/support/jwks-server.js'
import { generateTestKey, signCompact, type TestKey } from '../../test/support/jwt.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { CachedJWKSProvider } from '../jwks/cached-jwks-provider.js'
import { type GoogleIapOptions, googleIap, type IapIdentity } from './google-iap-mechanism.js'
import type { GoogleIapClaims } from './iap-claims.js'

const AUDIENCE = '/projects/123456/global/backendServices/987654'
const IAP_ISSUER = 'https://cloud.google.com/iap'
const start = Math.floor(Date.UTC(2030, 0, 1) / 1000)
const iapKey = generateTestKey('ES256', 'iap-1')
const rsaKey = generateTestKey('RS256', 'iap-rsa')

let server: JwksServer
let jwks: CachedJWKSProvider
let now = start
let mechanism: AuthenticationMechanism

function build(options: Partial<GoogleIapOptions> = {}): AuthenticationMechanism {
  return googleIap({ audience: AUDIENCE, jwks, jwksUri: server.url, clock: () => now * 1000, ...options })
}

function assertion(
  payload: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  key: TestKey | { hmacSecret: string } = iapKey,
): string {
  return signCompact({
    header: { alg: 'ES256', typ: 'JWT', kid: 'iap-1', ...header },
    payload: {
      iss: IAP_ISSUER,
      sub: 'accounts.google.com:1234567890',
      aud: AUDIENCE,
      iat: now,
      exp: now + 600,
      email: 'ada@example.com',
      hd: 'example.com',
      google: { access_levels: ['accessPolicies/1/accessLevels/corp'] },
      ...payload,
    },
    key,
  })
}

const present = (value: string, extra: Record<string, string> = {}, target = mechanism) =>
  target.authenticate(headerSource({ 'x-goog-iap-jwt-assertion': value, ...extra }))

beforeAll(async () => {
  server = await startJwksServer()
  server.setDocument({ keys: [iapKey.jwk, rsaKey.jwk] })
  jwks = new CachedJWKSProvider({ allowInsecureLoopback: true, clock: () => now * 1000 })
  mechanism = build()
})
afterAll(async () => {
  await jwks.close()
  await server.close()
})
beforeEach(() => {
  now = start
})

describe('Google IAP assertion', () => {
  it('authenticates a signed assertion as the default user principal', async () => {
    expect(await present(assertion())).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'accounts.google.com:1234567890', kind: 'user', displayName: 'ada@example.com' },
      evidence: {
        mechanism: 'google-iap',
        credentialType: 'iap-assertion',
        attributes: { issuer: IAP_ISSUER, email: 'ada@example.com', hostedDomain: 'example.com' },
        expiresAt: new Date((start + 600) * 1000),
      },
    })
  })

  it('ignores unsigned identity headers entirely', async () => {
    const spoofed = { 'x-goog-authenticated-user-email': 'accounts.google.com:mallory@example.com' }
    expect((await mechanism.authenticate(headerSource(spoofed))).kind).toBe('none')
    const outcome = await present(assertion(), {
      ...spoofed,
      'x-goog-authenticated-user-id': 'accounts.google.com:666',
    })
    expect(outcome).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'accounts.google.com:1234567890' },
    })
  })

  it('rejects a duplicated header (joined by the HTTP layer) and an empty one', async () => {
    expect((await present(`${assertion()}, ${assertion()}`)).kind).toBe('invalid')
    expect((await present('')).kind).toBe('invalid')
  })

  it.each([
    ['another backend service', { aud: '/projects/123456/global/backendServices/111' }],
    ['an App Engine audience of the same project', { aud: '/projects/123456/apps/my-app' }],
    ['an array without ours', { aud: ['/projects/1/apps/x'] }],
    ['no audience', { aud: undefined }],
  ])('rejects %s', async (_name, payload) => {
    expect((await present(assertion(payload))).kind).toBe('invalid')
  })

  it.each([
    ['Google accounts', 'https://accounts.google.com'],
    ['a trailing slash', `${IAP_ISSUER}/`],
    ['securetoken', 'https://securetoken.google.com/project'],
    ['a lookalike host', 'https://cloud.google.com.evil.example/iap'],
  ])('rejects the foreign issuer %s', async (_name, iss) => {
    expect((await present(assertion({ iss }))).kind).toBe('invalid')
  })

  it('accepts only ES256: HS256 with the public key, RS256 and none are refused without a fetch', async () => {
    await present(assertion())
    const hits = server.hits
    const pem = iapKey.publicKey.export({ format: 'pem', type: 'spki' }) as string
    expect((await present(assertion({}, { alg: 'HS256' }, { hmacSecret: pem }))).kind).toBe('invalid')
    expect((await present(assertion({}, { alg: 'RS256', kid: 'iap-rsa' }, rsaKey))).kind).toBe('invalid')
    expect((await present(assertion({}, { alg: 'none' }))).kind).toBe('invalid')
    expect(server.hits).toBe(hits)
  })

  it('enforces time: expired, future iat, lifetime over 10 minutes plus twice the skew', async () => {
    expect((await present(assertion({ iat: start - 700, exp: start - 31 }))).kind).toBe('invalid')
    expect((await present(assertion({ iat: start + 31, exp: start + 600 }))).kind).toBe('invalid')
    expect((await present(assertion({ iat: start - 61, exp: start + 600 }))).kind).toBe('invalid')
    expect((await present(assertion({ iat: start - 60, exp: start + 600 }))).kind).toBe('authenticated')
    expect((await present(assertion({ iat: start, exp: start + 661 }))).kind).toBe('invalid')
  })

  it.each([
    ['no subject', { sub: undefined }],
    ['a numeric email', { email: 42 }],
    ['an empty email', { email: '' }],
    ['a numeric azp', { azp: 7 }],
    ['access levels as a string', { google: { access_levels: 'corp' } }],
    ['65 access levels', { google: { access_levels: Array.from({ length: 65 }, (_, i) => `l${i}`) } }],
    ['gcip without sub', { gcip: { email: 'a@b.c' } }],
    ['gcip email_verified as text', { gcip: { sub: 'x', email_verified: 'yes' } }],
    ['gcip sign-in attributes that are not strings', { gcip: { sub: 'x', sign_in_attributes: { a: 1 } } }],
  ])('rejects an assertion with %s', async (_name, payload) => {
    expect((await present(assertion(payload))).kind).toBe('invalid')
  })

  it('rejects header problems: no kid, no typ, another typ, key-carrying headers, oversized', async () => {
    expect((await present(assertion({}, { kid: undefined }))).kind).toBe('invalid')
    expect((await present(assertion({}, { typ: undefined }))).kind).toBe('invalid')
    expect((await present(assertion({}, { typ: 'at+jwt' }))).kind).toBe('invalid')
    expect((await present(assertion({}, { jwk: iapKey.jwk }))).kind).toBe('invalid')
    expect((await present(assertion({ padding: 'x'.repeat(16_500) }))).kind).toBe('invalid')
  })

  it('passes verified claims to the identity resolver, which may refuse or be unavailable', async () => {
    const seen: GoogleIapClaims[] = []
    const answers: (IapIdentity | Error)[] = [
      { kind: 'principal', principal: { id: 'user-42', kind: 'user' } },
      { kind: 'invalid', reason: 'unknown user' },
      { kind: 'unavailable', reason: 'directory down', retryAfterSeconds: 7 },
      new Error('boom'),
      { kind: 'principal', principal: { id: '', kind: 'user' } },
    ]
    const resolving = build({
      resolveIdentity: (claims) => {
        seen.push(claims)
        const answer = answers.shift()
        if (answer === undefined || answer instanceof Error) throw answer ?? new Error('no answer')
        return answer
      },
    })
    const gcip = {
      sub: 'gcip-1',
      email: 'g@example.com',
      email_verified: true,
      tenant: 't1',
      sign_in_attributes: { a: 'b' },
    }
    const token = assertion({ gcip, google: { access_levels: ['corp'], device_id: 'device-9' } })
    expect(await present(token, {}, resolving)).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'user-42' },
    })
    expect(seen[0]).toMatchObject({
      subject: 'accounts.google.com:1234567890',
      email: 'ada@example.com',
      hostedDomain: 'example.com',
      accessLevels: ['corp'],
      deviceId: 'device-9',
      externalIdentity: {
        subject: 'gcip-1',
        emailVerified: true,
        tenant: 't1',
        signInAttributes: { a: 'b' },
      },
    })
    expect(await present(token, {}, resolving)).toEqual({ kind: 'invalid', reason: 'unknown user' })
    expect(await present(token, {}, resolving)).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 7 })
    expect((await present(token, {}, resolving)).kind).toBe('unavailable')
    expect((await present(token, {}, resolving)).kind).toBe('unavailable')
  })

  it('answers unavailable when Google keys cannot be obtained, invalid for an unknown key', async () => {
    const otherServer = await startJwksServer()
    const otherJwks = new CachedJWKSProvider({ allowInsecureLoopback: true, clock: () => now * 1000 })
    try {
      const iap = googleIap({
        audience: AUDIENCE,
        jwks: otherJwks,
        jwksUri: otherServer.url,
        clock: () => now * 1000,
      })
      otherServer.setBehaviour({ kind: 'raw', body: '<html>maintenance</html>' })
      expect((await present(assertion(), {}, iap)).kind).toBe('unavailable')
      now += 10
      otherServer.setDocument({ keys: [generateTestKey('ES256', 'rotated').jwk] })
      expect((await present(assertion(), {}, iap)).kind).toBe('invalid')
    } finally {
      await otherJwks.close()
      await otherServer.close()
    }
  })

  it('refuses bad configuration', () => {
    const attempts: [Partial<GoogleIapOptions>, string][] = [
      [{ audience: [AUDIENCE] as unknown as string }, 'iap.invalid_config'],
      [{ audience: ' ' }, 'iap.invalid_config'],
      [{ header: 'x goog' }, 'iap.invalid_config'],
      [{ clockSkewSeconds: -1 }, 'iap.invalid_config'],
      [{ jwksUri: 'http://www.gstatic.com/iap/verify/public_key-jwk' }, 'jwks.insecure_uri'],
    ]
    for (const [override, code] of attempts) {
      let caught: unknown
      try {
        build(override)
      } catch (error) {
        caught = error
      }
      expect(isPortcullisError(caught) && caught.code).toBe(code)
    }
  })
})
