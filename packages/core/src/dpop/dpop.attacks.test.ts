import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { calculateJwkThumbprint, type JWK } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type AccessTokenFixture, startAccessTokenFixture } from '../../test/support/access-token-fixture.js'
import {
  type DPoPClientKey,
  dpopClientKey,
  dpopProof,
  type ProofOptions,
  requestSource,
} from '../../test/support/dpop.js'
import type { AuthenticationOutcome } from '../authentication/outcome.js'
import type { OAuthAccessTokensOptions } from '../authorization-server/access-token-mechanism.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { MemoryRateLimitStore } from '../local-accounts/rate-limits/memory-rate-limit-store.js'
import { DPoPNonces } from './dpop-nonces.js'

const URL = 'https://app.example/mcp'
let fixture: AccessTokenFixture
let client: DPoPClientKey
let other: DPoPClientKey
const start = Math.floor(Date.UTC(2030, 0, 1) / 1000)

beforeAll(async () => {
  fixture = await startAccessTokenFixture()
  client = await dpopClientKey('ES256')
  other = await dpopClientKey('EdDSA')
})
afterAll(() => fixture.close())
beforeEach(() => {
  fixture.nowSeconds = start
})

function mechanism(dpop: Partial<NonNullable<OAuthAccessTokensOptions['dpop']>> = {}, extra = {}) {
  return fixture.mechanism({
    dpop: { origins: ['https://app.example'], replay: new MemoryRateLimitStore(), ...dpop },
    ...extra,
  })
}

async function boundToken(jkt = client.thumbprint): Promise<string> {
  const { accountId, grantId } = await fixture.grant()
  return fixture.sign({ ...fixture.claims(accountId, grantId), cnf: { jkt } })
}

const proofFor = (token: string, options: ProofOptions = {}, key = client) =>
  dpopProof(key, { url: URL, token, iat: fixture.nowSeconds, ...options })

async function present(
  mech: ReturnType<typeof mechanism>,
  token: string,
  proof: string | undefined,
  { scheme = 'DPoP', method = 'GET', path = '/mcp' } = {},
): Promise<AuthenticationOutcome> {
  const headers: Record<string, string> = { authorization: `${scheme} ${token}` }
  if (proof !== undefined) headers.dpop = proof
  return mech.authenticate(requestSource(headers, method, path))
}

function expectRefused(outcome: AuthenticationOutcome, reason: string, error = 'invalid_dpop_proof') {
  expect(outcome).toEqual({
    kind: 'invalid',
    reason: `oauth: ${reason}`,
    challenge: { scheme: 'DPoP', error, algorithms: ['ES256', 'EdDSA', 'RS256', 'PS256'] },
  })
}

describe('DPoP at the resource: accepted', () => {
  it('accepts a bound token with a proof by its key, and records the thumbprint', async () => {
    const token = await boundToken()
    const outcome = await present(mechanism(), token, proofFor(token))
    expect(outcome.kind).toBe('authenticated')
    if (outcome.kind !== 'authenticated') return
    expect(outcome.evidence.attributes?.dpopJkt).toBe(client.thumbprint)
  })

  it('compares htu normalised (case, default port, dot segments) and without query or fragment', async () => {
    const mech = mechanism()
    for (const url of ['HTTPS://APP.example:443/mcp', 'https://app.example/a/../mcp?x=1#f']) {
      const token = await boundToken()
      expect((await present(mech, token, proofFor(token, { url }))).kind, url).toBe('authenticated')
    }
  })

  it('accepts an unbound bearer token when DPoP is optional, and a bound EdDSA client', async () => {
    const { accountId, grantId } = await fixture.grant()
    const bearerToken = await fixture.sign(fixture.claims(accountId, grantId))
    expect((await present(mechanism(), bearerToken, undefined, { scheme: 'Bearer' })).kind).toBe(
      'authenticated',
    )
    const token = await boundToken(other.thumbprint)
    expect((await present(mechanism(), token, proofFor(token, {}, other))).kind).toBe('authenticated')
  })

  it('checks a proof on every request even when the token verification is cached', async () => {
    const mech = mechanism()
    const token = await boundToken()
    expect((await present(mech, token, proofFor(token))).kind).toBe('authenticated')
    expectRefused(await present(mech, token, undefined), 'dpop.proof_missing')
    expect((await present(mech, token, proofFor(token))).kind).toBe('authenticated')
  })
})

describe('DPoP at the resource: adversarial proofs', () => {
  it('refuses a proof replayed on the same instance', async () => {
    const mech = mechanism()
    const token = await boundToken()
    const proof = proofFor(token)
    expect((await present(mech, token, proof)).kind).toBe('authenticated')
    expectRefused(await present(mech, token, proof), 'dpop.replayed')
  })

  it('refuses a proof replayed on another instance sharing the jti store', async () => {
    const replay = new MemoryRateLimitStore()
    const first = mechanism({ replay })
    const second = mechanism({ replay })
    const token = await boundToken()
    const proof = proofFor(token)
    expect((await present(first, token, proof)).kind).toBe('authenticated')
    expectRefused(await present(second, token, proof), 'dpop.replayed')
  })

  it('refuses a proof for another method or another URL', async () => {
    const mech = mechanism()
    const token = await boundToken()
    expectRefused(await present(mech, token, proofFor(token, { method: 'POST' })), 'dpop.htm_mismatch')
    expectRefused(
      await present(mech, token, proofFor(token, { url: 'https://app.example/admin' })),
      'dpop.htu_mismatch',
    )
    expectRefused(
      await present(mech, token, proofFor(token, { url: 'https://evil.example/mcp' })),
      'dpop.htu_mismatch',
    )
    expectRefused(
      await present(mech, token, proofFor(token, { url: 'http://app.example/mcp' })),
      'dpop.htu_mismatch',
    )
    expectRefused(await present(mech, token, proofFor(token), { path: '/other' }), 'dpop.htu_mismatch')
  })

  it('refuses HS256, alg none, and an algorithm outside the allow-list', async () => {
    const mech = mechanism({ algorithms: ['ES256'] })
    const token = await boundToken()
    const refusedAlg = (outcome: AuthenticationOutcome) =>
      expect(outcome).toEqual({
        kind: 'invalid',
        reason: 'oauth: dpop.algorithm_not_allowed',
        challenge: { scheme: 'DPoP', error: 'invalid_dpop_proof', algorithms: ['ES256'] },
      })
    const hs256 = proofFor(token, { header: { alg: 'HS256' }, signWith: { hmacSecret: 'secret' } })
    refusedAlg(await present(mech, token, hs256))
    const none = proofFor(token, { header: { alg: 'none' } })
    refusedAlg(await present(mech, token, none))
    const unsigned = `${none.split('.').slice(0, 2).join('.')}.`
    expect((await present(mech, token, unsigned)).kind).toBe('invalid')
    const edToken = await boundToken(other.thumbprint)
    const ed = proofFor(edToken, {}, other)
    refusedAlg(await present(mech, edToken, ed))
  })

  it('refuses a private key in the jwk, a symmetric jwk, and a missing jwk', async () => {
    const mech = mechanism()
    const token = await boundToken()
    const privateJwk = client.key.privateKey.export({ format: 'jwk' })
    expectRefused(
      await present(mech, token, proofFor(token, { header: { jwk: privateJwk } })),
      'dpop.private_key_in_jwk',
    )
    expectRefused(
      await present(mech, token, proofFor(token, { header: { jwk: { kty: 'oct', k: 'c2VjcmV0' } } })),
      'dpop.private_key_in_jwk',
    )
    expectRefused(
      await present(mech, token, proofFor(token, { header: { jwk: undefined } })),
      'dpop.missing_jwk',
    )
  })

  it('accepts RS256, PS256 and EdDSA proofs; refuses a key that does not fit the alg, or a short RSA key', async () => {
    const mech = mechanism()
    for (const alg of ['RS256', 'PS256', 'EdDSA'] as const) {
      const key = await dpopClientKey(alg)
      const token = await boundToken(key.thumbprint)
      expect((await present(mech, token, proofFor(token, {}, key))).kind, alg).toBe('authenticated')
    }
    const rsa = await dpopClientKey('RS256')
    const token = await boundToken(rsa.thumbprint)
    // An RSA key in an ES256 proof (signed RS256): the key type does not fit the header algorithm.
    const confused = proofFor(token, { header: { alg: 'ES256' }, signWith: rsa.key }, rsa)
    expectRefused(await present(mech, token, confused), 'dpop.bad_jwk')
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 })
    const { kty, n, e } = short.publicKey.export({ format: 'jwk' })
    const shortKey: DPoPClientKey = {
      key: { kid: 'short', alg: 'RS256', privateKey: short.privateKey, publicKey: short.publicKey, jwk: {} },
      publicJwk: { kty, n, e },
      thumbprint: await calculateJwkThumbprint({ kty, n, e } as JWK),
    }
    const shortToken = await boundToken(shortKey.thumbprint)
    expectRefused(await present(mech, shortToken, proofFor(shortToken, {}, shortKey)), 'dpop.bad_jwk')
  })

  it('refuses a wrong typ and a signature by a key other than the jwk', async () => {
    const mech = mechanism()
    const token = await boundToken()
    expectRefused(await present(mech, token, proofFor(token, { header: { typ: 'JWT' } })), 'dpop.bad_typ')
    const forged = proofFor(token, { signWith: (await dpopClientKey('ES256')).key })
    expectRefused(await present(mech, token, forged), 'dpop.bad_signature')
  })

  it('refuses an ath mismatch and a missing ath', async () => {
    const mech = mechanism()
    const token = await boundToken()
    const otherToken = await boundToken()
    expectRefused(await present(mech, token, proofFor(otherToken)), 'dpop.ath_mismatch')
    expectRefused(
      await present(mech, token, proofFor(token, { claims: { ath: undefined } })),
      'dpop.ath_mismatch',
    )
  })

  it('refuses an expired or a future iat, and accepts the edges of the window', async () => {
    const mech = mechanism({ maxAgeSeconds: 60, clockSkewSeconds: 5 })
    const token = await boundToken()
    const now = fixture.nowSeconds
    expectRefused(await present(mech, token, proofFor(token, { iat: now - 66 })), 'dpop.iat_too_old')
    expectRefused(await present(mech, token, proofFor(token, { iat: now + 6 })), 'dpop.iat_in_future')
    expect((await present(mech, token, proofFor(token, { iat: now - 65 }))).kind).toBe('authenticated')
    expect((await present(mech, token, proofFor(token, { iat: now + 5 }))).kind).toBe('authenticated')
  })

  it('refuses a token bound to another key', async () => {
    const token = await boundToken(other.thumbprint)
    expectRefused(await present(mechanism(), token, proofFor(token)), 'dpop.key_mismatch', 'invalid_token')
  })

  it('refuses a stolen bound token sent as Bearer, with and without DPoP configured', async () => {
    const token = await boundToken()
    expectRefused(
      await present(mechanism(), token, undefined, { scheme: 'Bearer' }),
      'dpop.bound_token_as_bearer',
      'invalid_token',
    )
    const plain = await present(fixture.mechanism(), token, undefined, { scheme: 'Bearer' })
    expect(plain).toEqual({ kind: 'invalid', reason: 'oauth: dpop.bound_token_as_bearer' })
  })

  it('refuses a token with a confirmation it cannot check (certificate binding)', async () => {
    const { accountId, grantId } = await fixture.grant()
    const token = await fixture.sign({ ...fixture.claims(accountId, grantId), cnf: { 'x5t#S256': 'abc' } })
    const outcome = await present(mechanism(), token, undefined, { scheme: 'Bearer' })
    expect(outcome).toEqual({ kind: 'invalid', reason: 'oauth: token.unsupported_confirmation' })
  })

  it('refuses malformed input: two proofs joined by a proxy, a garbage proof, a malformed DPoP header', async () => {
    const mech = mechanism()
    const token = await boundToken()
    const joined = `${proofFor(token)}, ${proofFor(token)}`
    expectRefused(await present(mech, token, joined), 'dpop.malformed')
    expectRefused(await present(mech, token, 'not-a-jwt'), 'dpop.malformed')
    expectRefused(await present(mech, token, proofFor(token, { claims: { jti: 5 } })), 'dpop.bad_jti')
    expectRefused(
      await present(mech, token, proofFor(token, { claims: { htu: 'not a url' } })),
      'dpop.htu_mismatch',
    )
    const doubleSpace = await mech.authenticate(
      requestSource({ authorization: `DPoP  ${token}`, dpop: proofFor(token) }),
    )
    expect(doubleSpace).toEqual({ kind: 'invalid', reason: 'oauth: malformed bearer header' })
  })

  it('answers unavailable when the jti store is down', async () => {
    const replay = {
      consume: () => Promise.reject(new Error('down')),
      reset: () => Promise.resolve(),
    }
    const token = await boundToken()
    expect((await present(mechanism({ replay }), token, proofFor(token))).kind).toBe('unavailable')
  })
})

describe('DPoP at the resource: route policy', () => {
  it('required: refuses bearer-only tokens, and unbound tokens sent with the DPoP scheme', async () => {
    const mech = mechanism({ required: true })
    const { accountId, grantId } = await fixture.grant()
    const unbound = await fixture.sign(fixture.claims(accountId, grantId))
    expectRefused(
      await present(mech, unbound, undefined, { scheme: 'Bearer' }),
      'dpop.bound_token_required',
      'invalid_token',
    )
    expectRefused(await present(mech, unbound, proofFor(unbound)), 'dpop.token_not_bound', 'invalid_token')
  })

  it('without the dpop option, the DPoP scheme is not this mechanism’s', async () => {
    const token = await boundToken()
    expect((await present(fixture.mechanism(), token, proofFor(token))).kind).toBe('none')
  })

  it('refuses bad configuration with typed errors', () => {
    for (const origins of [
      [],
      ['https://app.example/mcp'],
      ['ftp://app.example'],
      ['https://app.example?x'],
    ]) {
      let thrown: unknown
      try {
        mechanism({ origins })
      } catch (error) {
        thrown = error
      }
      expect(isPortcullisError(thrown) && thrown.code, String(origins)).toBe('dpop.invalid_config')
    }
    expect(() => mechanism({ algorithms: ['HS256' as 'ES256'] })).toThrow(/never none or HMAC/)
  })
})

describe('DPoP server nonces', () => {
  const secret = randomBytes(32)

  it('asks for a nonce, accepts the current one, and refuses a stale one with a fresh nonce', async () => {
    const nonces = new DPoPNonces({ secret, rotationSeconds: 60 })
    const mech = mechanism({ nonces })
    const token = await boundToken()
    const first = await present(mech, token, proofFor(token))
    const current = nonces.current(fixture.nowSeconds * 1000)
    expect(first).toEqual({
      kind: 'invalid',
      reason: 'oauth: dpop.nonce_required',
      challenge: { scheme: 'DPoP', error: 'use_dpop_nonce', algorithms: expect.any(Array), nonce: current },
    })
    expect((await present(mech, token, proofFor(token, { claims: { nonce: current } }))).kind).toBe(
      'authenticated',
    )
    // One window later the previous nonce is still accepted; two windows later it is stale.
    fixture.nowSeconds += 60
    expect((await present(mech, token, proofFor(token, { claims: { nonce: current } }))).kind).toBe(
      'authenticated',
    )
    fixture.nowSeconds += 60
    const stale = await present(mech, token, proofFor(token, { claims: { nonce: current } }))
    expect(stale.kind === 'invalid' && stale.reason).toBe('oauth: dpop.nonce_required')
    const fresh = stale.kind === 'invalid' ? stale.challenge?.nonce : undefined
    expect(fresh).toBe(nonces.current(fixture.nowSeconds * 1000))
    expect(fresh).not.toBe(current)
  })

  it('is the same on every instance with the same secret, and different with another', () => {
    const at = Date.UTC(2030, 0, 1)
    const a = new DPoPNonces({ secret })
    expect(new DPoPNonces({ secret }).accepts(a.current(at), at)).toBe(true)
    expect(new DPoPNonces({ secret: randomBytes(32) }).accepts(a.current(at), at)).toBe(false)
    expect(a.accepts(`${a.current(at)}x`, at)).toBe(false)
  })

  it('refuses a short secret and never shows it', () => {
    expect(() => new DPoPNonces({ secret: randomBytes(16) })).toThrow(/32 bytes/)
    const nonces = new DPoPNonces({ secret })
    const shown = `${inspect(nonces)} ${String(nonces)} ${JSON.stringify(nonces)}`
    expect(shown).not.toContain(secret.toString('hex'))
    expect(shown).not.toContain(secret.toString('base64'))
    expect(shown).toContain('[hidden]')
  })
})
