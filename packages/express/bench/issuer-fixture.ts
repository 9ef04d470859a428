// What the access-token and DPoP benches share: the authorization server's JWKS on loopback (one ES256
// key generated for the run), one account with one grant for the resource in the memory stores, and
// access tokens (ES256 at+jwt) for that grant, bound to a key (`cnf`) or not.
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'

export const ISSUER = 'https://auth.bench'
export const ORIGIN = 'https://app.bench'
export const RESOURCE = `${ORIGIN}/mcp`

export const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
/** A compact JWS of `input` signed with ES256 (P-256, IEEE P1363 signature). */
export const es256 = (input: string, key: KeyObject) =>
  `${input}.${b64u(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`

/** Starts the issuer's JWKS server and makes the account and its grant; `close()` stops the server. */
export async function issuerFixture() {
  const signer = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = { ...signer.publicKey.export({ format: 'jwk' }), kid: 'as-1', alg: 'ES256', use: 'sig' }
  const jwksServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' })
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
  const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`

  const notices = new MemoryRevocationNotices()
  const accounts = new MemoryAccountStore({ notices })
  const grants = new MemoryOAuthServerStore({ accounts, notices })
  const accountId = randomUUID()
  await accounts.createAccount({ accountId, username: 'bench', passwordHash: '$bench$x', now: new Date() })
  const grantId = `grant-${randomUUID()}`
  await grants.upsert({
    model: 'Grant',
    id: grantId,
    payload: { accountId, clientId: 'bench-client', resources: { [RESOURCE]: 'mcp:read' } },
    expiresAt: new Date(Date.now() + 3_600_000),
  })

  const now = Math.floor(Date.now() / 1000)
  /** An access token of the grant, bound to a key when `cnf` is given (`{ jkt }`). */
  const accessToken = (cnf?: object) =>
    es256(
      `${b64u(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'as-1' }))}.${b64u(
        JSON.stringify({
          iss: ISSUER,
          aud: RESOURCE,
          sub: accountId,
          client_id: 'bench-client',
          jti: randomUUID(),
          scope: 'mcp:read',
          grant_id: grantId,
          iat: now,
          exp: now + 3600,
          ...(cnf === undefined ? {} : { cnf }),
        }),
      )}`,
      signer.privateKey,
    )
  return {
    jwksUri,
    notices,
    grants,
    accessToken,
    close() {
      jwksServer.closeAllConnections()
      jwksServer.close()
    },
  }
}
