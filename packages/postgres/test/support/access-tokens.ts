// The authorization server's signing side, as far as a resource sees it: an ES256 key generated for the
// run, its JWKS served on loopback, and RFC 9068 `at+jwt` access tokens signed with it.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export const AS_ISSUER = 'https://auth.app.example'
export const RESOURCE = 'https://app.example/mcp'
export const CLIENT_ID = 'mcp-client-1'

export interface TestAuthorizationServer {
  readonly jwksUri: string
  /** An access token for `accountId` under `grantId`, valid for five minutes from now. */
  token(accountId: string, grantId: string, extra?: Record<string, unknown>): string
  close(): Promise<void>
}

export async function startTestAuthorizationServer(): Promise<TestAuthorizationServer> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'as-1', alg: 'ES256', use: 'sig' }
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' })
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
  return {
    jwksUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    token(accountId, grantId, extra = {}) {
      const now = Math.floor(Date.now() / 1000)
      const header = { alg: 'ES256', typ: 'at+jwt', kid: 'as-1' }
      const claims = {
        iss: AS_ISSUER,
        aud: RESOURCE,
        sub: accountId,
        client_id: CLIENT_ID,
        jti: randomUUID(),
        scope: 'mcp:read',
        grant_id: grantId,
        iat: now,
        exp: now + 300,
        ...extra,
      }
      const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(claims))}`
      const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' })
      return `${input}.${b64u(signature)}`
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
