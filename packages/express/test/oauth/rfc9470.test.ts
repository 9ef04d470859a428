// RFC 9470 step-up for API clients, end to end: a standard OAuth client holding a JWT access token from
// the real IdP calls a route guarded by `authenticatedWithin` / `acrAtLeast`, reads the
// `insufficient_user_authentication` challenge, re-authorizes at the IdP with the `max_age` /
// `acr_values` it names, and retries with the fresher token until the route accepts it.
import { createHash, randomBytes } from 'node:crypto'
import { acrAtLeast, authenticatedWithin, requiresStepUp } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACR_VALUES, DEFAULT_CLIENT } from '../../../core/test/oidc/support/test-idp.js'
import { OAuthApp } from './support/harness.js'

const API = 'https://api.example/'
const API_CLIENT = {
  clientId: 'api-client',
  clientSecret: 'api-client-secret-that-is-long-enough-012345',
  redirectUris: ['https://client.example/cb'],
}

/** The parameters of a `WWW-Authenticate: Bearer ...` challenge. */
function challengeOf(header: string | null): Record<string, string> {
  expect(header).toMatch(/^Bearer /)
  const parameters: Record<string, string> = {}
  for (const match of (header as string).matchAll(/([a-z_]+)="([^"]*)"/g)) {
    parameters[match[1] as string] = match[2] as string
  }
  return parameters
}

describe('RFC 9470 step-up challenges for bearer clients', () => {
  let app: OAuthApp

  beforeAll(async () => {
    app = await OAuthApp.start({
      idp: {
        clients: [DEFAULT_CLIENT, API_CLIENT],
        jwtAccessTokens: { audience: API, clientId: API_CLIENT.clientId },
      },
      mechanisms: (fixture) => [
        workloadJwt({
          name: 'idp-bearer',
          default: false,
          issuer: fixture.idp.issuer,
          audience: API,
          jwksUri: `${fixture.idp.issuer}/jwks`,
          jwks: fixture.jwks,
        }),
      ],
      routes: (security) => {
        const api = security.router({ prefix: '/api/v2' })
        api.get(
          '/payouts',
          {
            auth: required('idp-bearer'),
            guards: [authenticatedWithin(300), acrAtLeast('urn:test:loa:2', { levels: ACR_VALUES })],
          },
          (request, response) => {
            response.json({ for: request.security.principal.id })
          },
        )
        api.post(
          '/payouts',
          {
            auth: required('idp-bearer'),
            guards: [requiresStepUp('payout', { challenge: { maxAge: 0, acrValues: ['urn:test:loa:2'] } })],
          },
          (_request, response) => {
            response.json({ paid: true })
          },
        )
        return api
      },
    })
  })
  afterAll(async () => {
    await app.close()
  })

  /** A standard authorization-code + PKCE client at the IdP; `extra` carries the challenge's parameters. */
  async function accessToken(extra: Record<string, string> = {}): Promise<string> {
    const verifier = randomBytes(32).toString('base64url')
    const authorization = new URL(`${app.fixture.idp.issuer}/auth`)
    authorization.search = new URLSearchParams({
      client_id: API_CLIENT.clientId,
      response_type: 'code',
      redirect_uri: API_CLIENT.redirectUris[0] as string,
      scope: 'openid api',
      state: randomBytes(16).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    }).toString()
    const callback = await app.fixture.browser.authorize(
      authorization.href,
      API_CLIENT.redirectUris[0] as string,
    )
    const response = await fetch(`${app.fixture.idp.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${API_CLIENT.clientId}:${API_CLIENT.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') as string,
        redirect_uri: API_CLIENT.redirectUris[0] as string,
        code_verifier: verifier,
      }),
    })
    const body = (await response.json()) as { access_token?: string }
    expect(response.status, JSON.stringify(body)).toBe(200)
    return body.access_token as string
  }

  it('challenges with max_age, then acr_values, and accepts the retry with a fresher, stronger token', async () => {
    app.fixture.browser.clearCookies()
    const longAgo = Math.floor(Date.now() / 1000) - 3600
    app.fixture.idp.nextLogin = { accountId: 'api-user', authTime: longAgo, acr: 'urn:test:loa:1' }
    let token = await accessToken()
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8'))
    expect(claims).toMatchObject({ aud: API, auth_time: longAgo, acr: 'urn:test:loa:1' })

    const client = app.client()
    const challenges: Record<string, string>[] = []
    let response = await client.request('/api/v2/payouts', {
      headers: { authorization: `Bearer ${token}` },
      wantsJson: true,
    })
    expect([response.status, response.body.code]).toEqual([
      401,
      'authentication.insufficient_user_authentication',
    ])
    for (let round = 0; round < 3 && response.status === 401; round += 1) {
      expect(response.body.code).toBe('authentication.insufficient_user_authentication')
      const challenge = challengeOf(response.headers.get('www-authenticate'))
      expect(challenge.error).toBe('insufficient_user_authentication')
      challenges.push(challenge)
      // What the client sends back to the IdP is exactly what the challenge asked for.
      const extra: Record<string, string> = { prompt: 'login' }
      if (challenge.max_age !== undefined) extra.max_age = challenge.max_age
      if (challenge.acr_values !== undefined) extra.acr_values = challenge.acr_values
      app.fixture.idp.nextLogin = {
        accountId: 'api-user',
        acr: challenge.acr_values?.split(' ')[0] ?? 'urn:test:loa:1',
      }
      token = await accessToken(extra)
      response = await client.request('/api/v2/payouts', {
        headers: { authorization: `Bearer ${token}` },
        wantsJson: true,
      })
    }
    expect(challenges.map((challenge) => [challenge.max_age, challenge.acr_values])).toEqual([
      ['300', undefined],
      [undefined, 'urn:test:loa:2'],
    ])
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ for: 'api-user' })
  })

  it('a bearer client refused by requiresStepUp gets the route hints in the challenge', async () => {
    app.fixture.browser.clearCookies()
    app.fixture.idp.nextLogin = { accountId: 'api-user', acr: 'urn:test:loa:2' }
    const token = await accessToken()
    const refused = await app.client().post('/api/v2/payouts', {
      headers: { authorization: `Bearer ${token}` },
      wantsJson: true,
    })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('step-up.required')
    expect(challengeOf(refused.headers.get('www-authenticate'))).toMatchObject({
      error: 'insufficient_user_authentication',
      max_age: '0',
      acr_values: 'urn:test:loa:2',
    })
  })

  it('an invalid or missing token is a plain 401 Bearer challenge, not insufficient_user_authentication', async () => {
    const client = app.client()
    const missing = await client.request('/api/v2/payouts', { wantsJson: true })
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer')
    const forged = await client.request('/api/v2/payouts', {
      headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' },
      wantsJson: true,
    })
    expect(forged.status).toBe(401)
    expect(forged.headers.get('www-authenticate')).toBe('Bearer')
  })
})
