import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRANT_ID_CLAIM } from '../src/index.js'
import { ACCOUNT_ID, type Harness, type Mount, RESOURCE, startHarness } from './support/harness.js'
import { authorize, Browser, redeemCode, refresh } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

describe.each<Mount>(['node', 'express', 'fastify'])('the code flow mounted on %s', (mount) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ mount })
  })
  afterAll(async () => h.close())

  it('issues an RFC 9068 access token for exactly the requested resource, signed by the first key', async () => {
    const clientId = h.documents.client('/flow.json')
    const outcome = await authorize(h.issuer, {
      clientId,
      redirectUri: REDIRECT,
      resource: RESOURCE,
      scope: 'notes:read',
    })
    expect(outcome.redirect?.searchParams.get('iss')).toBe(h.issuer)
    expect(outcome.code).toBeTypeOf('string')
    expect(h.interaction.seen.at(-1)).toBe('login')

    const token = await redeemCode(h.issuer, clientId, REDIRECT, outcome.code as string, outcome.verifier)
    expect(token.status).toBe(200)
    expect(token.body.token_type).toBe('Bearer')
    expect(token.body.refresh_token).toBeTypeOf('string')
    expect(token.body.id_token).toBeUndefined()

    const metadata = (await (
      await fetch(`${h.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string>
    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri as string))
    const { payload, protectedHeader } = await jwtVerify(token.body.access_token as string, jwks, {
      issuer: h.issuer,
      audience: RESOURCE,
      typ: 'at+jwt',
      algorithms: ['ES256'],
    })
    expect(protectedHeader.kid).toBe(h.keys[0]?.kid)
    expect(payload.aud).toBe(RESOURCE)
    expect(payload.sub).toBe(ACCOUNT_ID)
    expect(payload.client_id).toBe(clientId)
    expect(payload.scope).toBe('notes:read')
    expect(payload.jti).toBeTypeOf('string')
    expect(Math.abs((payload.auth_time as number) - Date.now() / 1000)).toBeLessThan(60)
    expect((payload.exp as number) - (payload.iat as number)).toBe(120)
    const grantId = payload[GRANT_ID_CLAIM] as string
    expect(grantId).toBeTypeOf('string')
    expect(await h.store.status(grantId)).toEqual({ grantId, accountId: ACCOUNT_ID, clientId })

    const published = (await (await fetch(metadata.jwks_uri as string)).json()) as {
      keys: { kid: string; d?: string }[]
    }
    expect(published.keys.map((key) => key.kid).sort()).toEqual(h.keys.map((key) => key.kid).sort())
    expect(published.keys.every((key) => key.d === undefined)).toBe(true)

    const rotated = await refresh(h.issuer, clientId, token.body.refresh_token as string)
    expect(rotated.status).toBe(200)
    expect(rotated.body.refresh_token).not.toBe(token.body.refresh_token)
    const again = await jwtVerify(rotated.body.access_token as string, jwks, {
      issuer: h.issuer,
      audience: RESOURCE,
    })
    expect(again.payload[GRANT_ID_CLAIM]).toBe(grantId)
    expect(decodeProtectedHeader(rotated.body.access_token as string).typ).toBe('at+jwt')
  })

  it('asks the application (the interaction) on every authorization, never the provider session', async () => {
    const clientId = h.documents.client('/again.json')
    const browser = new Browser()
    const before = h.interaction.seen.length
    for (let i = 0; i < 2; i += 1) {
      const outcome = await authorize(
        h.issuer,
        { clientId, redirectUri: REDIRECT, resource: RESOURCE },
        browser,
      )
      expect(outcome.code).toBeTypeOf('string')
    }
    expect(h.interaction.seen.slice(before)).toEqual(['login', 'login'])
    const silent = new URL(`${h.issuer}/auth`)
    silent.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'notes:read',
      resource: RESOURCE,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      prompt: 'none',
    }).toString()
    const refused = await browser.get(silent.href)
    expect(new URL(refused.headers.get('location') ?? 'about:blank').searchParams.get('error')).toBe(
      'login_required',
    )
  })

  it('serves RFC 8414 metadata at the issuer and at the path-inserted well-known URL', async () => {
    const inserted = await fetch(`${h.origin}/.well-known/oauth-authorization-server/oauth`)
    expect(inserted.status).toBe(200)
    const body = (await inserted.json()) as Record<string, unknown>
    expect(body.issuer).toBe(h.issuer)
    expect(body.code_challenge_methods_supported).toEqual(['S256'])
    expect(body.response_types_supported).toEqual(['code'])
    expect(body.grant_types_supported).toEqual(['authorization_code', 'refresh_token'])
    expect(body.token_endpoint_auth_methods_supported).toContain('none')
    expect(body.registration_endpoint).toBeUndefined()
    expect(body.client_id_metadata_document_supported).toBe(true)
    expect(body.revocation_endpoint).toBe(`${h.issuer}/token/revocation`)
    expect(await h.server.metadata()).toEqual(body)
  })
})
