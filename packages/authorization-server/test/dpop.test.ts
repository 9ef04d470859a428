// DPoP (RFC 9449) from the authorization server: proofs made with jose against the real server, and the
// issued token checked by the resource side (`oauthAccessTokens` with `dpop`).
import { randomUUID } from 'node:crypto'
import { oauthAccessTokens } from '@portcullis/core/authorization-server'
import { accessTokenHash } from '@portcullis/core/dpop'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { MemoryRateLimitStore } from '@portcullis/core/local-accounts'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import {
  type CryptoKey,
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  type JWK,
  SignJWT,
} from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, type TokenResponse } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

interface Holder {
  readonly privateKey: CryptoKey
  readonly jwk: JWK
  readonly thumbprint: string
}

async function holder(alg = 'ES256'): Promise<Holder> {
  const { privateKey, publicKey } = await generateKeyPair(alg)
  const jwk = await exportJWK(publicKey)
  return { privateKey, jwk, thumbprint: await calculateJwkThumbprint(jwk) }
}

function proof(key: Holder, method: string, url: string, extra: Record<string, unknown> = {}) {
  return new SignJWT({ htm: method, htu: url, jti: randomUUID(), ...extra })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
    .setIssuedAt()
    .sign(key.privateKey)
}

async function tokenRequest(
  url: string,
  form: Record<string, string>,
  dpop?: string,
): Promise<TokenResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(dpop === undefined ? {} : { dpop }),
    },
    body: new URLSearchParams(form),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }
}

describe('the authorization server issues DPoP-bound tokens', () => {
  let h: Harness
  let jwks: CachedJWKSProvider
  beforeAll(async () => {
    h = await startHarness()
    jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  })
  afterAll(async () => {
    await jwks.close()
    await h.close()
  })

  async function boundTokens(key: Holder) {
    const clientId = h.documents.client(`/dpop-${randomUUID()}.json`)
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    const form = {
      grant_type: 'authorization_code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code: outcome.code as string,
      code_verifier: outcome.verifier,
    }
    const token = await tokenRequest(`${h.issuer}/token`, form, await proof(key, 'POST', `${h.issuer}/token`))
    return { clientId, token }
  }

  it('lists dpop_signing_alg_values_supported in its metadata', async () => {
    const metadata = (await (
      await fetch(`${h.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>
    expect(metadata.dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA', 'PS256', 'RS256'])
  })

  it('answers a proof at the token endpoint with token_type DPoP and cnf.jkt, and binds the refresh token', async () => {
    const key = await holder()
    const { clientId, token } = await boundTokens(key)
    expect(token.status).toBe(200)
    expect(token.body.token_type).toBe('DPoP')
    expect(decodeJwt(token.body.access_token as string).cnf).toEqual({ jkt: key.thumbprint })

    const refreshToken = token.body.refresh_token as string
    const form = { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken }
    const url = `${h.issuer}/token`
    // The public client's refresh token is bound: without a proof, or with another key's, it is refused.
    expect((await tokenRequest(url, form)).status).toBe(400)
    const thief = await holder()
    const stolen = await tokenRequest(url, form, await proof(thief, 'POST', url))
    expect(stolen.status).toBe(400)
    expect(stolen.body.access_token).toBeUndefined()
    const rotated = await tokenRequest(url, form, await proof(key, 'POST', url))
    expect(rotated.status).toBe(200)
    expect(rotated.body.token_type).toBe('DPoP')
    expect(decodeJwt(rotated.body.access_token as string).cnf).toEqual({ jkt: key.thumbprint })
  })

  it('refuses a proof made for another URL at the token endpoint', async () => {
    const key = await holder()
    const clientId = h.documents.client(`/dpop-${randomUUID()}.json`)
    const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
    const form = {
      grant_type: 'authorization_code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code: outcome.code as string,
      code_verifier: outcome.verifier,
    }
    const wrong = await proof(key, 'POST', 'https://elsewhere.example/token')
    const refused = await tokenRequest(`${h.issuer}/token`, form, wrong)
    expect(refused.status).toBe(400)
    expect(refused.body.access_token).toBeUndefined()
  })

  it('its bound token is accepted by oauthAccessTokens with a proof of the key, and refused copied', async () => {
    const key = await holder()
    const { token } = await boundTokens(key)
    const accessToken = token.body.access_token as string
    const metadata = (await (
      await fetch(`${h.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string>
    const mechanism = oauthAccessTokens({
      issuer: h.issuer,
      resource: RESOURCE,
      jwksUri: metadata.jwks_uri as string,
      jwks,
      grants: h.store,
      notices: new MemoryRevocationNotices(),
      dpop: { origins: [new URL(RESOURCE).origin], replay: new MemoryRateLimitStore(), required: true },
    })
    const present = async (authorization: string, dpop?: string) =>
      mechanism.authenticate({
        header: (name) => (name === 'authorization' ? authorization : name === 'dpop' ? dpop : undefined),
        cookie: () => undefined,
        method: 'POST',
        path: new URL(RESOURCE).pathname,
      })
    const ath = accessTokenHash(accessToken)
    const accepted = await present(`DPoP ${accessToken}`, await proof(key, 'POST', RESOURCE, { ath }))
    expect(accepted.kind).toBe('authenticated')
    const copied = await present(`Bearer ${accessToken}`)
    expect(copied.kind === 'invalid' && copied.reason).toBe('oauth: dpop.bound_token_as_bearer')
    const thief = await holder()
    const forged = await present(`DPoP ${accessToken}`, await proof(thief, 'POST', RESOURCE, { ath }))
    expect(forged.kind === 'invalid' && forged.reason).toBe('oauth: dpop.key_mismatch')
  })
})
