// The JWT attack corpus: every case is presented through the real mechanism, against a real JWKS server
// on loopback, and must be rejected (invalid, never authenticated) - most of them without any key fetch.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { headerSource } from '../../test/support/credential-source.js'
import { b64u, generateTestKey, signCompact, workloadClaims } from '../../test/support/jwt.js'
import {
  AUDIENCE,
  bearer,
  ISSUER,
  startWorkloadFixture,
  type WorkloadFixture,
} from '../../test/support/workload-fixture.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'

let fixture: WorkloadFixture
let mechanism: AuthenticationMechanism
const start = Math.floor(Date.UTC(2030, 0, 1) / 1000)

beforeAll(async () => {
  fixture = await startWorkloadFixture()
  mechanism = fixture.mechanism()
  // Warm the key set once so that "no fetch" assertions below are meaningful.
  expect((await bearer(mechanism, fixture.token())).kind).toBe('authenticated')
})
afterAll(() => fixture.close())
beforeEach(() => {
  fixture.nowSeconds = start
})

async function expectInvalid(token: string, reasonPart?: string): Promise<void> {
  const outcome = await bearer(mechanism, token)
  expect(outcome.kind).toBe('invalid')
  if (reasonPart !== undefined && outcome.kind === 'invalid') expect(outcome.reason).toContain(reasonPart)
  if (outcome.kind === 'invalid') expect(outcome.reason).not.toContain(token.slice(0, 20))
}

async function expectNoFetch(run: () => Promise<void>): Promise<void> {
  const before = fixture.server.hits
  await run()
  expect(fixture.server.hits).toBe(before)
}

const payloadOf = (overrides: Record<string, unknown>) => ({
  ...workloadClaims(ISSUER, AUDIENCE, start),
  ...overrides,
})

describe('algorithm attacks', () => {
  it.each(['none', 'None', 'NONE', 'nOnE'])('rejects alg %s, signed or unsigned', async (alg) => {
    const header = b64u(JSON.stringify({ alg, typ: 'at+jwt', kid: 'es-1' }))
    const payload = b64u(JSON.stringify(payloadOf({})))
    await expectNoFetch(async () => {
      await expectInvalid(`${header}.${payload}.`)
      await expectInvalid(`${header}.${payload}.${b64u('sig')}`, 'algorithm_not_allowed')
    })
  })

  it('rejects a missing or non-string alg', async () => {
    await expectNoFetch(async () => {
      await expectInvalid(fixture.token({ header: { alg: undefined } }), 'algorithm_not_allowed')
      await expectInvalid(fixture.token({ header: { alg: ['ES256'] } }), 'algorithm_not_allowed')
    })
  })

  it('rejects HS256 tokens HMAC-signed with the RSA or EC public key (key confusion)', async () => {
    for (const key of [fixture.keys.RS256, fixture.keys.ES256]) {
      const pem = key.publicKey.export({ format: 'pem', type: 'spki' })
      const jwkText = JSON.stringify(key.jwk)
      const material = String(key.jwk.n ?? key.jwk.x)
      for (const secret of [pem, jwkText, Buffer.from(material, 'base64url')]) {
        const token = signCompact({
          header: { alg: 'HS256', typ: 'at+jwt', kid: key.kid },
          payload: payloadOf({}),
          key: { hmacSecret: secret as string | Uint8Array },
        })
        await expectNoFetch(() => expectInvalid(token, 'algorithm_not_allowed'))
      }
    }
  })

  it('never verifies with a key of another type than the header algorithm', async () => {
    // ES256 header naming the RSA key, RS256 header naming the EC key, PS256 with a key published for RS256.
    await expectInvalid(fixture.token({ header: { alg: 'ES256', kid: 'rs-1' } }))
    await expectInvalid(fixture.token({ header: { alg: 'RS256', kid: 'es-1' } }))
    await expectInvalid(fixture.token({ key: fixture.keys.RS256, header: { alg: 'PS256' } }))
    await expectInvalid(fixture.token({ key: fixture.keys.ES256, header: { alg: 'EdDSA', kid: 'es-1' } }))
  })

  it('uses only the algorithms the verifier allows, even if the JWKS offers more', async () => {
    const esOnly = fixture.mechanism({ algorithms: ['ES256'] })
    expect((await bearer(esOnly, fixture.token({ alg: 'ES256' }))).kind).toBe('authenticated')
    expect((await bearer(esOnly, fixture.token({ alg: 'RS256' }))).kind).toBe('invalid')
    expect((await bearer(esOnly, fixture.token({ alg: 'EdDSA' }))).kind).toBe('invalid')
  })

  it('rejects a signature by a foreign key that reuses a published kid', async () => {
    const attacker = generateTestKey('ES256', 'es-1')
    await expectInvalid(fixture.token({ key: attacker }), 'bad_signature')
  })

  it('rejects a payload changed after signing', async () => {
    const [header, , signature] = fixture.token().split('.')
    const forged = b64u(JSON.stringify(payloadOf({ sub: 'svc-admin' })))
    await expectInvalid(`${header}.${forged}.${signature}`, 'bad_signature')
  })
})

describe('header attacks', () => {
  it.each(['jku', 'jwk', 'x5u', 'x5c', 'x5t', 'x5t#S256', 'crit', 'b64'])(
    'rejects the %s header',
    async (name) => {
      const values: Record<string, unknown> = {
        jku: 'https://attacker.example/jwks',
        jwk: fixture.keys.ES256.jwk,
        x5u: 'https://attacker.example/cert',
        x5c: ['MIIB'],
        x5t: 'abc',
        'x5t#S256': 'abc',
        crit: ['exp'],
        b64: false,
      }
      await expectNoFetch(() =>
        expectInvalid(fixture.token({ header: { [name]: values[name] } }), 'forbidden_header'),
      )
    },
  )

  it('requires a kid: missing, empty, non-string, padded, control characters', async () => {
    await expectNoFetch(async () => {
      for (const kid of [undefined, '', 42, ' es-1', 'es-1\u0000', null]) {
        await expectInvalid(fixture.token({ header: { kid } }), 'bad_kid')
      }
    })
  })

  it('rejects a header with a duplicate kid member', async () => {
    const token = signCompact({
      rawHeader: '{"alg":"ES256","typ":"at+jwt","kid":"unknown","kid":"es-1"}',
      payload: payloadOf({}),
      key: fixture.keys.ES256,
    })
    await expectNoFetch(() => expectInvalid(token, 'bad_header'))
  })

  it('rejects duplicate claims in the payload', async () => {
    const claims = JSON.stringify(payloadOf({})).slice(0, -1)
    const token = signCompact({
      header: { alg: 'ES256', typ: 'at+jwt', kid: 'es-1' },
      rawPayload: `${claims},"sub":"svc-admin"}`,
      key: fixture.keys.ES256,
    })
    await expectInvalid(token, 'bad_payload')
  })

  it('requires typ at+jwt on the access-token profile', async () => {
    await expectInvalid(fixture.token({ header: { typ: undefined } }), 'missing_typ')
    await expectInvalid(fixture.token({ header: { typ: 'JWT' } }), 'bad_typ')
    await expectInvalid(fixture.token({ header: { typ: 'logout+jwt' } }), 'bad_typ')
    await expectInvalid(fixture.token({ header: { typ: 7 } }), 'bad_typ')
    expect((await bearer(mechanism, fixture.token({ header: { typ: 'application/AT+JWT' } }))).kind).toBe(
      'authenticated',
    )
  })
})

describe('claim attacks', () => {
  it.each([
    ['Cyrillic lookalike', 'https://issuer.exаmple'],
    ['trailing slash', `${ISSUER}/`],
    ['upper-case scheme', ISSUER.replace('https', 'HTTPS')],
    ['leading space', ` ${ISSUER}`],
    ['http downgrade', ISSUER.replace('https', 'http')],
    ['array', [ISSUER]],
    ['missing', undefined],
  ])('rejects an issuer %s', async (_name, iss) => {
    await expectNoFetch(() => expectInvalid(fixture.token({ payload: { iss } }), 'issuer_mismatch'))
  })

  it.each([
    ['missing', undefined],
    ['empty string', ''],
    ['empty array', []],
    ['another audience', 'https://other.example'],
    ['array without ours', ['https://other.example']],
    ['duplicates', [AUDIENCE, AUDIENCE]],
    ['a number', 42],
    ['an array with a number', [AUDIENCE, 42]],
    ['an object', { aud: AUDIENCE }],
    ['padded', ` ${AUDIENCE}`],
    ['a prefix of ours', AUDIENCE.slice(0, -1)],
    ['33 entries', Array.from({ length: 33 }, (_, index) => (index === 0 ? AUDIENCE : `a${index}`))],
  ])('rejects an audience that is %s', async (_name, aud) => {
    await expectNoFetch(() => expectInvalid(fixture.token({ payload: { aud } })))
  })

  it('accepts an audience array that contains ours', async () => {
    const outcome = await bearer(
      mechanism,
      fixture.token({ payload: { aud: ['https://other.example', AUDIENCE] } }),
    )
    expect(outcome.kind).toBe('authenticated')
  })

  it('applies the 30 s skew exactly at the +/-31 s boundaries', async () => {
    const at = (payload: Record<string, unknown>) => bearer(mechanism, fixture.token({ payload }))
    expect((await at({ iat: start - 300, exp: start - 31 })).kind).toBe('invalid')
    expect((await at({ iat: start - 300, exp: start - 30 })).kind).toBe('invalid')
    expect((await at({ iat: start - 300, exp: start - 29 })).kind).toBe('authenticated')
    expect((await at({ iat: start + 31, exp: start + 300 })).kind).toBe('invalid')
    expect((await at({ iat: start + 30, exp: start + 300 })).kind).toBe('authenticated')
    expect((await at({ nbf: start + 31 })).kind).toBe('invalid')
    expect((await at({ nbf: start + 29 })).kind).toBe('authenticated')
  })

  it('rejects nbf == exp, exp <= iat and lifetimes over the maximum', async () => {
    await expectInvalid(
      fixture.token({ payload: { nbf: start + 300, exp: start + 300 } }),
      'nbf_not_before_exp',
    )
    await expectInvalid(fixture.token({ payload: { iat: start, exp: start } }), 'exp_not_after_iat')
    await expectInvalid(
      fixture.token({ payload: { iat: start - 10, exp: start - 10 + 3601 } }),
      'lifetime_too_long',
    )
    expect(
      (await bearer(mechanism, fixture.token({ payload: { iat: start - 10, exp: start - 10 + 3600 } }))).kind,
    ).toBe('authenticated')
  })

  it.each([
    ['float exp', { exp: start + 300.5 }],
    ['string exp', { exp: String(start + 300) }],
    ['boolean iat', { iat: true }],
    ['negative iat', { iat: -1 }],
    ['huge exp', { exp: 1e20 }],
    ['missing exp', { exp: undefined }],
    ['missing iat', { iat: undefined }],
    ['string nbf', { nbf: String(start) }],
  ])('rejects %s', async (_name, payload) => {
    await expectNoFetch(() => expectInvalid(fixture.token({ payload }), 'bad_dates'))
  })

  it('requires sub, client_id and jti as strict identifiers', async () => {
    for (const claim of ['sub', 'client_id', 'jti']) {
      for (const value of [undefined, '', ' x', 7]) {
        await expectInvalid(fixture.token({ payload: { [claim]: value } }))
      }
    }
  })

  it('requires a well-formed scope claim on the access-token profile', async () => {
    const cases: Record<string, unknown>[] = [
      { scope: undefined },
      { scope: '' },
      { scope: 'a  b' },
      { scope: 'a a' },
      { scope: 'a "b' },
      { scope: ['a'], scp: ['a'] },
      { scope: undefined, scp: [] },
      { scope: undefined, scp: ['a', 7] },
      { scope: 42 },
    ]
    for (const payload of cases) await expectInvalid(fixture.token({ payload }))
  })
})

describe('token shape attacks', () => {
  it('rejects oversized tokens before any parsing or fetch', async () => {
    const token = fixture.token({ payload: { padding: 'x'.repeat(17_000) } })
    await expectNoFetch(() => expectInvalid(token, 'oversized'))
  })

  it('rejects non-canonical base64url spellings of a valid token', async () => {
    const token = fixture.token()
    const [header = '', payload = '', signature = ''] = token.split('.')
    // ES256 signatures are 64 bytes = 86 chars with 4 spare bits in the last char: flip one spare bit.
    const last = signature.at(-1) ?? 'A'
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const twin = alphabet[alphabet.indexOf(last) ^ 1] ?? 'A'
    const malleated = `${header}.${payload}.${signature.slice(0, -1)}${twin}`
    expect(Buffer.from(malleated.split('.')[2] ?? '', 'base64url')).toEqual(
      Buffer.from(signature, 'base64url'),
    )
    await expectInvalid(malleated, 'non_canonical')
    await expectInvalid(`${header}.${payload}.${signature}==`, 'malformed')
    await expectInvalid(`${header}=.${payload}.${signature}`, 'malformed')
    await expectInvalid(`${header}.${payload}.${signature.replaceAll('-', '+').replaceAll('_', '/')}x+/`)
  })

  it.each([
    ['two segments', (token: string) => token.split('.').slice(0, 2).join('.')],
    ['four segments', (token: string) => `${token}.x`],
    ['empty payload', (token: string) => token.replace(/\.[^.]+\./, '..')],
    ['embedded space', (token: string) => token.replace('.', ' .')],
    ['non-JSON header', (token: string) => `${b64u('not json')}${token.slice(token.indexOf('.'))}`],
    ['array header', (token: string) => `${b64u('["ES256"]')}${token.slice(token.indexOf('.'))}`],
  ])('rejects a token with %s', async (_name, mutate) => {
    await expectNoFetch(async () => {
      const outcome = await mechanism.authenticate(
        headerSource({ authorization: `Bearer ${mutate(fixture.token())}` }),
      )
      expect(outcome.kind).toBe('invalid')
    })
  })

  it('reads Authorization strictly: other schemes are absent, broken Bearer headers invalid', async () => {
    const token = fixture.token()
    expect((await bearer(mechanism, undefined)).kind).toBe('none')
    expect((await bearer(mechanism, 'dXNlcjpwYXNz', 'Basic')).kind).toBe('none')
    expect((await bearer(mechanism, token, 'bearer')).kind).toBe('authenticated')
    expect((await bearer(mechanism, ` ${token}`)).kind).toBe('invalid')
    expect((await bearer(mechanism, `${token}, Bearer ${token}`)).kind).toBe('invalid')
    expect((await bearer(mechanism, `${token} `)).kind).toBe('invalid')
    expect((await bearer(mechanism, '')).kind).toBe('invalid')
    expect((await mechanism.authenticate(headerSource({ authorization: 'Bearer' }))).kind).toBe('invalid')
  })
})

describe('key lifecycle at the IdP', () => {
  it('accepts a key rotated in, and rejects a key rotated out once the cache refreshes', async () => {
    const rotating = await startWorkloadFixture()
    try {
      const verifier = rotating.mechanism()
      expect((await bearer(verifier, rotating.token())).kind).toBe('authenticated')
      const next = generateTestKey('ES256', 'es-2')
      rotating.server.setDocument({ keys: [next.jwk] })
      expect((await bearer(verifier, rotating.token({ key: next }))).kind).toBe('authenticated')
      // The forced refresh replaced the set: es-1 is gone now.
      expect((await bearer(verifier, rotating.token())).kind).toBe('invalid')
    } finally {
      await rotating.close()
    }
  })

  it('answers unavailable (503), not invalid, when the JWKS endpoint is down', async () => {
    const down = await startWorkloadFixture()
    try {
      down.server.setBehaviour({ kind: 'status', status: 502 })
      const outcome = await bearer(down.mechanism(), down.token())
      expect(outcome).toMatchObject({ kind: 'unavailable' })
      expect(outcome.kind === 'unavailable' && outcome.retryAfterSeconds).toBeGreaterThan(0)
      down.server.setBehaviour({ kind: 'reset' })
      down.nowSeconds += 10
      expect((await bearer(down.mechanism(), down.token())).kind).toBe('unavailable')
    } finally {
      await down.close()
    }
  })

  it('floods of unknown kids cause at most one JWKS fetch per cooldown', async () => {
    const before = fixture.server.hits
    const tokens = Array.from({ length: 25 }, (_, index) =>
      fixture.token({ key: generateTestKey('ES256', `ghost-${index}`) }),
    )
    const outcomes = await Promise.all(tokens.map((token) => bearer(mechanism, token)))
    expect(new Set(outcomes.map((outcome) => outcome.kind))).toEqual(new Set(['invalid']))
    expect(fixture.server.hits - before).toBeLessThanOrEqual(1)
  })
})
