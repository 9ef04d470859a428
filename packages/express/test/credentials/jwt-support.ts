// Test-only: a real JWKS endpoint on 127.0.0.1 and a compact JWS signer over node:crypto. Keys are generated
// at run time and never written anywhere.
import { createHmac, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SigningKey {
  readonly kid: string
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  readonly jwk: Record<string, unknown>
}

export function es256Key(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return {
    kid,
    privateKey,
    publicKey,
    jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' },
  }
}

const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')

export function signEs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: SigningKey,
): string {
  const input = `${b64u(JSON.stringify({ alg: 'ES256', kid: key.kid, ...header }))}.${b64u(JSON.stringify(payload))}`
  return `${input}.${b64u(sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }))}`
}

export function signHs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: string,
): string {
  const input = `${b64u(JSON.stringify({ alg: 'HS256', ...header }))}.${b64u(JSON.stringify(payload))}`
  return `${input}.${b64u(createHmac('sha256', secret).update(input).digest())}`
}

/** Whose access token it is: the authorization server, the resource, the client and the grant. */
export interface AccessTokenGrant {
  readonly issuer: string
  readonly resource: string
  readonly clientId: string
  readonly accountId: string
  readonly grantId: string
}

/** An authorization server's access token (`at+jwt`) of the grant, scope `mcp:read`, valid 300 s; `claims` override. */
export function signAccessToken(
  key: SigningKey,
  grant: AccessTokenGrant,
  claims: Record<string, unknown> = {},
): string {
  const now = Math.floor(Date.now() / 1000)
  return signEs256(
    { typ: 'at+jwt' },
    {
      iss: grant.issuer,
      aud: grant.resource,
      sub: grant.accountId,
      client_id: grant.clientId,
      jti: randomUUID(),
      scope: 'mcp:read',
      grant_id: grant.grantId,
      iat: now,
      exp: now + 300,
      ...claims,
    },
    key,
  )
}

export interface JwksEndpoint {
  readonly url: string
  hits: number
  status: number
  keys: Record<string, unknown>[]
  close(): Promise<void>
}

export async function startJwksEndpoint(keys: Record<string, unknown>[]): Promise<JwksEndpoint> {
  const endpoint = { hits: 0, status: 200, keys } as JwksEndpoint
  const server = createServer((_request, response) => {
    endpoint.hits++
    if (endpoint.status !== 200) response.writeHead(endpoint.status).end()
    else
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: endpoint.keys }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return Object.assign(endpoint, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}
