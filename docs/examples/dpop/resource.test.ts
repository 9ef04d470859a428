import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  MemoryAccountStore,
  MemoryOAuthServerStore,
  MemoryRateLimitStore,
  MemoryRevocationNotices,
} from '@portcullis/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dpopResourceApp } from './resource.js'

const ISSUER = 'https://app.example.com'
const RESOURCE = 'https://app.example.com/mcp'
const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const client = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const { crv, kty, x, y } = client.publicKey.export({ format: 'jwk' })
const clientJwk = { crv, kty, x, y }
const thumbprint = createHash('sha256').update(JSON.stringify(clientJwk)).digest('base64url')

const jws = (header: object, payload: object, key: typeof signing.privateKey) => {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`
  return `${input}.${b64u(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`
}
const proof = (token: string, nonce?: string) =>
  jws(
    { typ: 'dpop+jwt', alg: 'ES256', jwk: clientJwk },
    {
      jti: randomUUID(),
      htm: 'POST',
      htu: RESOURCE,
      iat: Math.floor(Date.now() / 1000),
      ath: createHash('sha256').update(token).digest('base64url'),
      ...(nonce === undefined ? {} : { nonce }),
    },
    client.privateKey,
  )

describe('the DPoP resource example', () => {
  let jwksServer: Server
  let appServer: Server
  let origin: string
  let example: ReturnType<typeof dpopResourceApp>
  const accounts = new MemoryAccountStore()
  const grants = new MemoryOAuthServerStore({ accounts })

  beforeAll(async () => {
    const jwk = { ...signing.publicKey.export({ format: 'jwk' }), kid: 'as-1', alg: 'ES256', use: 'sig' }
    jwksServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }))
    })
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
    example = dpopResourceApp({
      issuer: ISSUER,
      jwksUri: `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`,
      grants,
      notices: new MemoryRevocationNotices(),
      replay: new MemoryRateLimitStore(),
      nonceSecret: randomBytes(32),
    })
    await example.ready
    appServer = example.app.listen(0, '127.0.0.1')
    await new Promise((resolve) => appServer.once('listening', resolve))
    origin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await example.close()
    for (const server of [appServer, jwksServer]) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  async function boundToken() {
    const accountId = randomUUID()
    await accounts.createAccount({ accountId, username: 'alice', passwordHash: '$test$x', now: new Date() })
    const grantId = `grant-${randomUUID()}`
    await grants.upsert({
      model: 'Grant',
      id: grantId,
      payload: { accountId, clientId: 'client-1', resources: { [RESOURCE]: 'mcp:read' } },
      expiresAt: new Date(Date.now() + 3_600_000),
    })
    const now = Math.floor(Date.now() / 1000)
    const claims = {
      iss: ISSUER,
      aud: RESOURCE,
      sub: accountId,
      client_id: 'client-1',
      jti: randomUUID(),
      scope: 'mcp:read',
      grant_id: grantId,
      iat: now,
      exp: now + 300,
      cnf: { jkt: thumbprint },
    }
    return jws({ alg: 'ES256', typ: 'at+jwt', kid: 'as-1' }, claims, signing.privateKey)
  }

  const list = (headers: Record<string, string>) =>
    fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
    })

  it('asks for a nonce, serves the retry, and refuses the token copied without the key', async () => {
    const token = await boundToken()
    const first = await list({ authorization: `DPoP ${token}`, dpop: proof(token) })
    expect(first.status).toBe(401)
    expect(((await first.json()) as { code: string }).code).toBe('dpop.nonce_required')
    const nonce = first.headers.get('dpop-nonce') as string
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const retry = await list({ authorization: `DPoP ${token}`, dpop: proof(token, nonce) })
    expect(retry.status).toBe(200)
    const copied = await list({ authorization: `Bearer ${token}` })
    expect(copied.status).toBe(401)
    expect(copied.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/)
  })

  it('publishes dpop_bound_access_tokens_required', async () => {
    const metadata = (await (
      await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as Record<string, unknown>
    expect(metadata.dpop_bound_access_tokens_required).toBe(true)
    expect(metadata.dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA', 'RS256', 'PS256'])
  })
})
