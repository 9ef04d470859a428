import { decodeJwt, decodeProtectedHeader } from 'jose'
import { beforeEach, describe, expect, it } from 'vitest'
import { headerSource } from '../../../test/support/credential-source.js'
import { b64u, signCompact } from '../../../test/support/jwt.js'
import type { AuthenticationMechanism } from '../../authentication/mechanism.js'
import type { AuthenticationOutcome } from '../../authentication/outcome.js'
import { accessTokenProfile } from '../../workload-jwt/token-profiles.js'
import { type WorkloadJwtOptions, workloadJwt } from '../../workload-jwt/workload-jwt-mechanism.js'
import { LocalAccountError } from '../errors.js'
import { type IssueAccessTokenRequest, issueAccessToken, localAccessTokenProfile } from './access-token.js'
import { LocalJWKSProvider } from './local-jwks-provider.js'
import { generateLocalSigningKey } from './signing-key.js'
import { LocalSigningKeyRing } from './signing-key-ring.js'

const ISSUER = 'https://app.example'
const AUDIENCE = 'https://app.example/api'
const JWKS_URI = 'https://app.example/.well-known/jwks.json'
const START = Date.UTC(2031, 0, 1)

let nowMs = START
let ring: LocalSigningKeyRing

beforeEach(async () => {
  nowMs = START
  ring = new LocalSigningKeyRing({
    active: await generateLocalSigningKey({ now: new Date(START), kid: 'k1' }),
    maxAccessTokenLifetimeSeconds: 600,
  })
})

function mechanism(options: Partial<WorkloadJwtOptions> = {}): AuthenticationMechanism {
  const jwks = new LocalJWKSProvider({ ring, issuer: ISSUER, jwksUri: JWKS_URI, clock: () => nowMs })
  return workloadJwt({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: JWKS_URI,
    jwks,
    profile: localAccessTokenProfile,
    algorithms: ['EdDSA', 'ES256'],
    clock: () => nowMs,
    ...options,
  })
}

function bearer(token: string, verifier = mechanism()): Promise<AuthenticationOutcome> {
  return Promise.resolve(verifier.authenticate(headerSource({ authorization: `Bearer ${token}` })))
}

async function issue(overrides: Partial<IssueAccessTokenRequest> = {}): Promise<string> {
  const issued = await issueAccessToken({
    ring,
    issuer: ISSUER,
    audience: AUDIENCE,
    subject: 'account-42',
    lifetimeSeconds: 300,
    securityEpoch: 3,
    now: new Date(nowMs),
    ...overrides,
  })
  return issued.token
}

describe('issueAccessToken', () => {
  it('produces an RFC 9068 shaped token verified by the workload-JWT machinery in process', async () => {
    const issued = await issueAccessToken({
      ring,
      issuer: ISSUER,
      audience: AUDIENCE,
      subject: 'account-42',
      lifetimeSeconds: 300,
      securityEpoch: 3,
      sessionBound: 'handle-7',
      clientId: 'local',
      acr: 'urn:example:pwd',
      amr: ['pwd'],
      authTime: new Date(START - 5000),
      scope: ['profile', 'orders:read'],
      now: new Date(START + 999),
    })
    expect(decodeProtectedHeader(issued.token)).toEqual({ alg: 'EdDSA', kid: 'k1', typ: 'at+jwt' })
    const iat = START / 1000
    expect(decodeJwt(issued.token)).toEqual({
      iss: ISSUER,
      sub: 'account-42',
      aud: AUDIENCE,
      iat,
      exp: iat + 300,
      jti: issued.jti,
      client_id: 'local',
      sec_epoch: 3,
      sid: 'handle-7',
      acr: 'urn:example:pwd',
      amr: ['pwd'],
      auth_time: iat - 5,
      scope: 'profile orders:read',
    })
    expect(issued).toMatchObject({
      kid: 'k1',
      issuedAt: new Date(START),
      expiresAt: new Date(START + 300_000),
    })
    expect(issued.jti).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect((await issueAccessToken({ ...baseRequest(), now: new Date(START) })).jti).not.toBe(issued.jti)

    const outcome = await bearer(issued.token)
    expect(outcome).toMatchObject({
      kind: 'authenticated',
      principal: { id: 'account-42' },
      evidence: {
        attributes: { issuer: ISSUER, kid: 'k1', alg: 'EdDSA', jti: issued.jti, clientId: 'local' },
        restrictions: { scopes: ['profile', 'orders:read'] },
        expiresAt: new Date(START + 300_000),
      },
    })
    // The default RFC 9068 profile accepts it too, since client_id and scope are present.
    const strict = mechanism({ profile: accessTokenProfile })
    expect((await bearer(issued.token, strict)).kind).toBe('authenticated')
  })

  it('is minimal without the optional claims, and signs with ES256 keys as well', async () => {
    expect(Object.keys(decodeJwt(await issue())).sort()).toEqual([
      'aud',
      'exp',
      'iat',
      'iss',
      'jti',
      'sec_epoch',
      'sub',
    ])
    ring.rotate(await generateLocalSigningKey({ alg: 'ES256', kid: 'k2', now: new Date(nowMs) }), {
      now: new Date(nowMs),
    })
    const token = await issue()
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: 'k2' })
    expect((await bearer(token)).kind).toBe('authenticated')
  })

  it('is refused for a wrong audience or issuer', async () => {
    expect(await bearer(await issue({ audience: 'https://other.example' }))).toMatchObject({
      kind: 'invalid',
      reason: 'workload-jwt: jwt.audience_mismatch',
    })
    expect(await bearer(await issue({ issuer: 'https://evil.example' }))).toMatchObject({
      kind: 'invalid',
      reason: 'workload-jwt: jwt.issuer_mismatch',
    })
  })

  it('is refused once expired (after the verifier skew)', async () => {
    const token = await issue({ lifetimeSeconds: 60 })
    nowMs = START + 60_000 + 29_000
    expect((await bearer(token)).kind).toBe('authenticated')
    nowMs = START + 60_000 + 30_000
    expect(await bearer(token)).toMatchObject({ kind: 'invalid', reason: 'workload-jwt: jwt.expired' })
  })

  it('refuses a token signed by a key that is not in the ring, even under a known kid', async () => {
    const strangerRing = new LocalSigningKeyRing({
      active: await generateLocalSigningKey({ now: new Date(START), kid: 'k1' }),
    })
    const forged = await issue({ ring: strangerRing })
    expect(await bearer(forged)).toMatchObject({ kind: 'invalid', reason: 'workload-jwt: jwt.bad_signature' })
    const unknownRing = new LocalSigningKeyRing({
      active: await generateLocalSigningKey({ now: new Date(START), kid: 'k9' }),
    })
    expect(await bearer(await issue({ ring: unknownRing }))).toMatchObject({
      kind: 'invalid',
      reason: 'workload-jwt: jwks.unknown_key',
    })
  })

  it('keeps verifying a retired key until its window ends, then refuses it', async () => {
    const old = await issue({ lifetimeSeconds: 600 })
    ring.rotate(await generateLocalSigningKey({ now: new Date(nowMs), kid: 'k2' }), { now: new Date(START) })
    const fresh = await issue()
    expect((await bearer(old)).kind).toBe('authenticated')
    expect((await bearer(fresh)).kind).toBe('authenticated')
    // Window: max lifetime 600 s + 30 s skew after the retire time.
    nowMs = START + 629_000
    const verifier = mechanism({ clockSkewSeconds: 300 })
    expect((await bearer(old, verifier)).kind).toBe('authenticated')
    nowMs = START + 630_000
    expect(await bearer(old, verifier)).toMatchObject({
      kind: 'invalid',
      reason: 'workload-jwt: jwks.unknown_key',
    })
    expect(ring.jwks(new Date(nowMs)).keys.map((key) => key.kid)).toEqual(['k2'])
  })

  it('refuses algorithm confusion: HS256 keyed with the public key, alg none, and a mismatched alg', async () => {
    const claims = decodeJwt(await issue())
    const jwk = ring.active.publicJwk
    for (const secret of [Buffer.from(jwk.x, 'base64url'), JSON.stringify(jwk), jwk.x]) {
      const forged = signCompact({
        header: { alg: 'HS256', typ: 'at+jwt', kid: 'k1' },
        payload: claims,
        key: { hmacSecret: secret },
      })
      expect(await bearer(forged)).toMatchObject({
        kind: 'invalid',
        reason: 'workload-jwt: jwt.algorithm_not_allowed',
      })
    }
    const unsigned = `${b64u(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: 'k1' }))}.${b64u(JSON.stringify(claims))}.`
    expect((await bearer(unsigned)).kind).toBe('invalid')
    // The EdDSA signature relabelled as ES256: the ring has no ES256 key under kid k1.
    const [header, payload, signature] = (await issue()).split('.')
    const relabelled = JSON.parse(Buffer.from(header as string, 'base64url').toString())
    const swapped = `${b64u(JSON.stringify({ ...relabelled, alg: 'ES256' }))}.${payload}.${signature}`
    expect(await bearer(swapped)).toMatchObject({ kind: 'invalid', reason: 'workload-jwt: jwks.unknown_key' })
  })

  it('refuses a token of another type, or none, signed with the real key', async () => {
    const claims = new TextEncoder().encode(JSON.stringify(decodeJwt(await issue())))
    for (const typ of ['JWT', 'id_token+jwt', 'application/jwt']) {
      const token = await ring.active.sign(claims, typ)
      expect(await bearer(token)).toMatchObject({ kind: 'invalid', reason: 'workload-jwt: jwt.bad_typ' })
    }
    expect((await bearer(await ring.active.sign(claims, 'application/at+jwt'))).kind).toBe('authenticated')
  })

  it('refuses a tampered payload', async () => {
    const [header, payload, signature] = (await issue()).split('.')
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString())
    const tampered = `${header}.${b64u(JSON.stringify({ ...claims, sub: 'admin' }))}.${signature}`
    expect(await bearer(tampered)).toMatchObject({
      kind: 'invalid',
      reason: 'workload-jwt: jwt.bad_signature',
    })
  })

  it('validates its request without echoing values', async () => {
    const bad: Partial<IssueAccessTokenRequest>[] = [
      { lifetimeSeconds: 601 },
      { lifetimeSeconds: 0 },
      { lifetimeSeconds: 1.5 },
      { securityEpoch: -1 },
      { securityEpoch: 0.5 },
      { subject: '' },
      { subject: ' padded ' },
      { audience: [] },
      { audience: ['a', 'a'] },
      { scope: ['has space'] },
      { scope: ['quote"'] },
      { amr: [] },
      { authTime: new Date(START + 1000) },
      { now: new Date(Number.NaN) },
      { sessionBound: '' },
    ]
    for (const overrides of bad) {
      const error = await issue(overrides).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error, JSON.stringify(overrides)).toBeInstanceOf(LocalAccountError)
      expect(error).toMatchObject({ code: 'local.invalid_input' })
    }
    const error = await issue({ randomBytes: () => new Uint8Array(3) }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'local.randomness_failed' })
  })
})

function baseRequest(): IssueAccessTokenRequest {
  return {
    ring,
    issuer: ISSUER,
    audience: AUDIENCE,
    subject: 'account-42',
    lifetimeSeconds: 300,
    securityEpoch: 3,
    now: new Date(nowMs),
  }
}
