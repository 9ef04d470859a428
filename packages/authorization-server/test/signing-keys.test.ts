import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import { generateSigningKey } from '../src/index.js'
import { RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

async function tokenFrom(keys: Awaited<ReturnType<typeof generateSigningKey>>[]) {
  const h = await startHarness({ keys })
  try {
    const clientId = h.documents.client('/keys.json')
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    const token = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code as string, outcome.verifier)
    const jwks = (await (await fetch(`${h.issuer}/jwks`)).json()) as { keys: [] }
    return { accessToken: token.body.access_token as string, jwks }
  } finally {
    await h.close()
  }
}

describe('the signing key ring', () => {
  it('signs with the first key; after a rotation the old key is still published and verifies older tokens', async () => {
    const [oldKey, newKey] = [await generateSigningKey(), await generateSigningKey('EdDSA')]
    const before = await tokenFrom([oldKey, newKey])
    expect(decodeProtectedHeader(before.accessToken)).toMatchObject({
      alg: 'ES256',
      kid: oldKey.kid,
      typ: 'at+jwt',
    })

    const after = await tokenFrom([newKey, oldKey])
    expect(decodeProtectedHeader(after.accessToken)).toMatchObject({
      alg: 'EdDSA',
      kid: newKey.kid,
      typ: 'at+jwt',
    })
    const published = createLocalJWKSet(after.jwks)
    await expect(jwtVerify(before.accessToken, published, { audience: RESOURCE })).resolves.toBeDefined()
    await expect(jwtVerify(after.accessToken, published, { audience: RESOURCE })).resolves.toBeDefined()

    const dropped = await tokenFrom([newKey])
    await expect(jwtVerify(before.accessToken, createLocalJWKSet(dropped.jwks))).rejects.toThrow()
  })

  it('signs RS256 and PS256 when such a key is first', async () => {
    for (const alg of ['RS256', 'PS256'] as const) {
      const key = await generateSigningKey(alg)
      const { accessToken, jwks } = await tokenFrom([key])
      expect(decodeProtectedHeader(accessToken).alg).toBe(alg)
      await expect(
        jwtVerify(accessToken, createLocalJWKSet(jwks), { algorithms: [alg] }),
      ).resolves.toBeDefined()
    }
  })
})
