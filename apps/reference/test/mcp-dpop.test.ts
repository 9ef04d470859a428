import { createHash, randomBytes, randomUUID } from 'node:crypto'
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
import {
  DocumentServer,
  TEST_CA,
} from '../../../packages/authorization-server/test/support/document-server.js'
import { AgentBrowser } from './support/oauth-agent.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * A client written with jose reaches the reference app's `/mcp` with a DPoP-bound token from the app's
 * own authorization server (RFC 9449): the token endpoint binds the token to the client's key, every MCP
 * request carries a fresh proof, and the same token copied without the key is refused.
 */
let app: TestApp
const documents = new DocumentServer()
const REDIRECT = 'http://127.0.0.1:33419/callback'

interface Holder {
  readonly privateKey: CryptoKey
  readonly jwk: JWK
  readonly thumbprint: string
}

async function holder(): Promise<Holder> {
  const { privateKey, publicKey } = await generateKeyPair('ES256')
  const jwk = await exportJWK(publicKey)
  return { privateKey, jwk, thumbprint: await calculateJwkThumbprint(jwk) }
}

const proof = (key: Holder, method: string, url: string, accessToken?: string) =>
  new SignJWT({
    htm: method,
    htu: url,
    jti: randomUUID(),
    ...(accessToken === undefined
      ? {}
      : { ath: createHash('sha256').update(accessToken).digest('base64url') }),
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
    .setIssuedAt()
    .sign(key.privateKey)

beforeAll(async () => {
  await documents.start()
  app = await startTestApp({
    authorizationServer: { clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: TEST_CA } },
  })
}, 120_000)

afterAll(async () => {
  await app?.close()
  await documents.stop()
})

describe('a jose client with a DPoP-bound token at the reference app', () => {
  const key = { current: undefined as Holder | undefined }
  let accessToken = ''

  beforeAll(async () => {
    key.current = await holder()
    const clientId = documents.client('/dpop-agent.json', {
      client_name: 'DPoP test agent',
      redirect_uris: [REDIRECT],
    })
    const verifier = randomBytes(32).toString('base64url')
    const authorization = new URL(`${app.url}/oauth/auth`)
    for (const [name, value] of Object.entries({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'resources:read',
      resource: `${app.url}/mcp`,
      state: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })) {
      authorization.searchParams.set(name, value)
    }
    const browser = new AgentBrowser(app.url)
    const back = await browser.authorize(
      authorization,
      { username: 'alice', password: app.password('alice') },
      REDIRECT,
    )
    const tokenUrl = `${app.url}/oauth/token`
    const response = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await proof(key.current, 'POST', tokenUrl),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code: back.searchParams.get('code') ?? '',
        code_verifier: verifier,
      }),
    })
    const body = (await response.json()) as Record<string, unknown>
    expect(response.status).toBe(200)
    expect(body.token_type).toBe('DPoP')
    accessToken = body.access_token as string
  }, 60_000)

  const list = (headers: Record<string, string>) =>
    fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
    })

  it('gets a token bound to its key', () => {
    expect(decodeJwt(accessToken).cnf).toEqual({ jkt: key.current?.thumbprint })
  })

  it('lists resources with a fresh proof on each request', async () => {
    const holderKey = key.current as Holder
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await list({
        authorization: `DPoP ${accessToken}`,
        dpop: await proof(holderKey, 'POST', `${app.url}/mcp`, accessToken),
      })
      expect(response.status).toBe(200)
      const { result } = (await response.json()) as { result: { resources: { uri: string }[] } }
      expect(result.resources.map((resource) => resource.uri)).toContain('reference://capabilities')
    }
  })

  it('refuses the token copied without the key: as Bearer, with another key, or with a replayed proof', async () => {
    const holderKey = key.current as Holder
    const asBearer = await list({ authorization: `Bearer ${accessToken}` })
    expect(asBearer.status).toBe(401)
    expect(((await asBearer.json()) as { code: string }).code).toBe('dpop.invalid_token')
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/)
    const thief = await holder()
    const stolen = await list({
      authorization: `DPoP ${accessToken}`,
      dpop: await proof(thief, 'POST', `${app.url}/mcp`, accessToken),
    })
    expect(stolen.status).toBe(401)
    const once = await proof(holderKey, 'POST', `${app.url}/mcp`, accessToken)
    expect((await list({ authorization: `DPoP ${accessToken}`, dpop: once })).status).toBe(200)
    const replayed = await list({ authorization: `DPoP ${accessToken}`, dpop: once })
    expect(replayed.status).toBe(401)
    expect(((await replayed.json()) as { code: string }).code).toBe('dpop.invalid_proof')
  })
})
