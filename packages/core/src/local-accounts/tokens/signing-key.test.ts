import { inspect } from 'node:util'
import { compactVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import { LocalAccountError } from '../errors.js'
import { generateLocalSigningKey, importLocalSigningKey, type LocalSigningKey } from './signing-key.js'

const NOW = new Date('2031-05-06T07:08:09Z')

function expectNoPrivateMaterial(key: LocalSigningKey): void {
  const d = key.exportPrivateJwk().d
  for (const rendered of [
    JSON.stringify(key),
    inspect(key),
    String(key),
    inspect(key, { showHidden: true, depth: 9 }),
  ]) {
    expect(rendered).not.toContain(d)
    expect(rendered).not.toMatch(/"d"/)
  }
  expect(JSON.stringify(key.publicJwk)).not.toContain(d)
}

async function refusal(run: () => Promise<unknown>): Promise<LocalAccountError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(LocalAccountError)
  expect((error as LocalAccountError).code).toBe('local.invalid_signing_key')
  return error as LocalAccountError
}

describe('generateLocalSigningKey', () => {
  it('makes an Ed25519 key by default, with an RFC 7638 thumbprint kid and only public members published', async () => {
    const key = await generateLocalSigningKey({ now: NOW })
    expect(key.alg).toBe('EdDSA')
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(key.createdAt).toEqual(NOW)
    expect(Object.keys(key.publicJwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x'])
    expect(key.publicJwk).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      alg: 'EdDSA',
      use: 'sig',
      kid: key.kid,
    })
    expect(key.toJSON()).toEqual({ kid: key.kid, alg: 'EdDSA', createdAt: NOW.toISOString() })
    expectNoPrivateMaterial(key)
  })

  it('makes ES256 keys on request, with an explicit kid', async () => {
    const key = await generateLocalSigningKey({ alg: 'ES256', kid: 'local-2031-05', now: NOW })
    expect(key.kid).toBe('local-2031-05')
    expect(Object.keys(key.publicJwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'])
    expect(key.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' })
    expectNoPrivateMaterial(key)
  })

  it('refuses other algorithms and malformed kids', async () => {
    await refusal(() => generateLocalSigningKey({ alg: 'RS256' as 'ES256', now: NOW }))
    await refusal(() => generateLocalSigningKey({ alg: 'HS256' as 'ES256', now: NOW }))
    await refusal(() => generateLocalSigningKey({ kid: 'has space', now: NOW }))
    await refusal(() => generateLocalSigningKey({ kid: '', now: NOW }))
  })
})

describe('export and import', () => {
  it.each(['EdDSA', 'ES256'] as const)('round-trips a %s private key through its JWK', async (alg) => {
    const original = await generateLocalSigningKey({ alg, now: NOW })
    const exported = original.exportPrivateJwk()
    expect(typeof exported.d).toBe('string')
    const imported = await importLocalSigningKey(JSON.parse(JSON.stringify(exported)), { createdAt: NOW })
    expect(imported.kid).toBe(original.kid)
    expect(imported.publicJwk).toEqual(original.publicJwk)
    // The imported private key signs what the original public key verifies.
    const token = await imported.sign(new TextEncoder().encode('{"a":1}'), 'at+jwt')
    const verified = await compactVerify(token, original.verificationKey.key, { algorithms: [alg] })
    expect(verified.protectedHeader).toEqual({ alg, kid: original.kid, typ: 'at+jwt' })
    expectNoPrivateMaterial(imported)
  })

  it('refuses public-only, mismatched, foreign and malformed JWKs without echoing key material', async () => {
    const ed = (await generateLocalSigningKey({ now: NOW })).exportPrivateJwk()
    const other = (await generateLocalSigningKey({ now: NOW })).exportPrivateJwk()
    const es = (await generateLocalSigningKey({ alg: 'ES256', now: NOW })).exportPrivateJwk()
    const { d: _d, ...publicOnly } = ed
    const cases: Record<string, unknown> = {
      publicOnly,
      mismatched: { ...ed, x: other.x },
      wrongCurve: { ...ed, crv: 'Ed448' },
      algMismatch: { ...ed, alg: 'ES256' },
      hmac: { kty: 'oct', k: 'c2VjcmV0', alg: 'HS256' },
      encryptionUse: { ...ed, use: 'enc' },
      badKid: { ...ed, kid: 'bad kid' },
      esWithoutY: { ...es, y: undefined },
      garbageD: { ...ed, d: 'AAAA' },
      notAnObject: null,
    }
    for (const [name, jwk] of Object.entries(cases)) {
      const error = await refusal(() => importLocalSigningKey(jwk as never))
      expect(`${name}: ${JSON.stringify(error)} ${error.message}`).not.toContain(ed.d)
    }
  })
})
