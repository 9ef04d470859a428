import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize } from './support/oauth-client.js'

/** Redirect URIs the MCP authorization spec refuses: http on a host that is not loopback, other schemes. */
const REFUSED = [
  'http://evil.test/cb',
  'http://10.0.0.1/cb',
  'http://127.0.0.1.evil.test/cb',
  'http://localhost.evil.test/cb',
  'cursor://client/oauth/callback',
  'javascript:alert(1)',
]
/** Loopback http (any port for native clients) and https. */
const ALLOWED = [
  'https://client.example/cb',
  'http://127.0.0.1:49152/cb',
  'http://[::1]:49152/cb',
  'http://localhost:49152/cb',
]

let h: Harness
beforeAll(async () => {
  h = await startHarness({ overrides: { registration: { rateLimit: { perMinute: 1000 } } } })
})
afterAll(async () => h.close())

const register = (metadata: Record<string, unknown>) =>
  fetch(`${h.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Registered client',
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  })

describe('redirect URIs: https, or http on loopback, for every kind of client', () => {
  for (const applicationType of ['web', 'native'] as const) {
    for (const uri of REFUSED) {
      it(`a ${applicationType} metadata document listing ${uri} gets no code sent there`, async () => {
        const clientId = h.documents.client(`/policy-${randomUUID()}.json`, {
          application_type: applicationType,
          redirect_uris: [uri],
        })
        const outcome = await authorize(h.issuer, { clientId, redirectUri: uri, resource: RESOURCE })
        expect(outcome.redirect).toBeUndefined()
        expect(outcome.code).toBeUndefined()
        expect(outcome.response.status).toBe(400)
        await outcome.response.body?.cancel()
      })

      it(`a ${applicationType} registration of ${uri} is refused with invalid_redirect_uri`, async () => {
        const response = await register({ application_type: applicationType, redirect_uris: [uri] })
        expect(response.status).toBe(400)
        const body = (await response.json()) as Record<string, unknown>
        expect(body.error).toBe('invalid_redirect_uri')
        expect(body.client_id).toBeUndefined()
      })
    }
  }

  it('one refused URI among allowed ones refuses the whole registration', async () => {
    const response = await register({
      application_type: 'web',
      redirect_uris: ['https://client.example/cb', 'http://evil.test/cb'],
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri')
  })

  it('a web metadata document with an https or loopback redirect URI gets its code there', async () => {
    for (const uri of ALLOWED) {
      const clientId = h.documents.client(`/policy-${randomUUID()}.json`, {
        application_type: 'web',
        redirect_uris: [uri],
      })
      const outcome = await authorize(h.issuer, { clientId, redirectUri: uri, resource: RESOURCE })
      expect({ uri, code: typeof outcome.code }).toEqual({ uri, code: 'string' })
      expect(outcome.redirect?.href.startsWith(uri)).toBe(true)
    }
  })

  it('registrations of https and loopback redirect URIs are accepted', async () => {
    for (const uri of ALLOWED) {
      const native = !uri.startsWith('https:') || uri.includes('127.0.0.1')
      const response = await register({ application_type: native ? 'native' : 'web', redirect_uris: [uri] })
      expect({ uri, status: response.status }).toEqual({ uri, status: 201 })
    }
  })
})

describe('public clients only: no client secret is ever issued or accepted', () => {
  it('advertises token_endpoint_auth_methods_supported none alone, and no HS256 anywhere', async () => {
    const metadata = await h.server.metadata()
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none'])
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toBeUndefined()
    expect(JSON.stringify(metadata)).not.toMatch(/"HS\d{3}"/)
    expect(JSON.stringify(metadata)).not.toContain('client_secret')
  })

  it('registers a none client without a client_secret', async () => {
    const response = await register({ redirect_uris: ['http://127.0.0.1/cb'], client_secret: 'x'.repeat(48) })
    expect(response.status).toBe(201)
    const body = (await response.json()) as Record<string, unknown>
    expect(body.token_endpoint_auth_method).toBe('none')
    expect(body.client_secret).toBeUndefined()
    expect(body.client_secret_expires_at).toBeUndefined()
  })

  const refusals: readonly [string, Record<string, unknown>][] = [
    ['client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }],
    ['client_secret_jwt', { token_endpoint_auth_method: 'client_secret_jwt' }],
    ['private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }],
    ['an HS256 ID token', { id_token_signed_response_alg: 'HS256' }],
    ['an HS256 client assertion', { token_endpoint_auth_signing_alg: 'HS256' }],
    ['an HS256 request object', { request_object_signing_alg: 'HS256' }],
    ['an HS256 userinfo response', { userinfo_signed_response_alg: 'HS256' }],
    ['symmetric ID token encryption', { id_token_encrypted_response_alg: 'dir' }],
    ['ID token encryption', { id_token_encrypted_response_alg: 'RSA-OAEP-256' }],
  ]
  for (const [what, metadata] of refusals) {
    it(`refuses a registration asking for ${what}, and issues no secret`, async () => {
      const response = await register({ redirect_uris: ['http://127.0.0.1/cb'], ...metadata })
      expect(response.status).toBe(400)
      const body = (await response.json()) as Record<string, unknown>
      expect(body.error).toBe('invalid_client_metadata')
      expect(body.client_secret).toBeUndefined()
    })
  }

  it('refuses a metadata document that asks for client_secret_post or an HS256 algorithm', async () => {
    for (const metadata of [
      { token_endpoint_auth_method: 'client_secret_post' },
      { request_object_signing_alg: 'HS256' },
    ]) {
      const clientId = h.documents.client(`/policy-${randomUUID()}.json`, metadata)
      const outcome = await authorize(h.issuer, {
        clientId,
        redirectUri: 'http://127.0.0.1:49152/cb',
        resource: RESOURCE,
      })
      expect(outcome.code).toBeUndefined()
      expect(outcome.response.status).toBe(400)
      await outcome.response.body?.cancel()
    }
  })
})
