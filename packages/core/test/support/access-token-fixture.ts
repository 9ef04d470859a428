// The resource side of the authorization server under test: a real JWKS on loopback with the issuer's
// ES256 key (and an RS256 one), accounts and grants in the memory stores, one set of in-process notices,
// and tokens signed with jose as the authorization server signs them.
import { randomUUID } from 'node:crypto'
import { importJWK, SignJWT } from 'jose'
import { MemoryAccountStore } from '../../src/accounts/memory-store.js'
import type { AuthenticationMechanism } from '../../src/authentication/mechanism.js'
import {
  type OAuthAccessTokensOptions,
  oauthAccessTokens,
} from '../../src/authorization-server/access-token-mechanism.js'
import { MemoryOAuthServerStore } from '../../src/authorization-server/memory-store.js'
import { CachedJWKSProvider } from '../../src/jwks/cached-jwks-provider.js'
import { MemoryRevocationNotices } from '../../src/revocation/memory-revocation-notices.js'
import { type JwksServer, startJwksServer } from './jwks-server.js'
import { generateTestKey, type TestKey } from './jwt.js'
import { seedGrant } from './seed-grant.js'

export const AS_ISSUER = 'https://auth.app.example'
export const RESOURCE = 'https://app.example/mcp'
export const CLIENT_ID = 'mcp-client-1'

export interface AccessTokenFixture {
  readonly server: JwksServer
  readonly jwks: CachedJWKSProvider
  readonly es256: TestKey
  readonly rs256: TestKey
  readonly notices: MemoryRevocationNotices
  readonly accounts: MemoryAccountStore
  readonly grants: MemoryOAuthServerStore
  /** Seconds since the epoch, as every part sees it. */
  nowSeconds: number
  mechanism(options?: Partial<OAuthAccessTokensOptions>): AuthenticationMechanism
  /** A new active account with a grant to `CLIENT_ID` for `RESOURCE`. */
  grant(): Promise<{ readonly accountId: string; readonly grantId: string }>
  /** An ES256 `at+jwt` signed with jose, as the authorization server issues it. */
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>
  claims(accountId: string, grantId: string): Record<string, unknown>
  close(): Promise<void>
}

export async function startAccessTokenFixture(): Promise<AccessTokenFixture> {
  const server = await startJwksServer()
  const es256 = generateTestKey('ES256', 'as-es-1')
  const rs256 = generateTestKey('RS256', 'as-rs-1')
  server.setDocument({ keys: [es256.jwk, rs256.jwk] })
  const notices = new MemoryRevocationNotices()
  const clock = () => fixture.nowSeconds * 1000
  const accounts = new MemoryAccountStore({ notices })
  const grants = new MemoryOAuthServerStore({ accounts, notices, clock })
  const privateJwk = { ...es256.privateKey.export({ format: 'jwk' }), alg: 'ES256' }
  const signingKey = await importJWK(privateJwk, 'ES256')
  const fixture: AccessTokenFixture = {
    server,
    es256,
    rs256,
    notices,
    accounts,
    grants,
    nowSeconds: Math.floor(Date.UTC(2030, 0, 1) / 1000),
    jwks: new CachedJWKSProvider({ allowInsecureLoopback: true, clock }),
    mechanism(options = {}) {
      return oauthAccessTokens({
        issuer: AS_ISSUER,
        resource: RESOURCE,
        jwksUri: server.url,
        jwks: fixture.jwks,
        grants,
        notices,
        clock,
        ...options,
      })
    },
    grant() {
      return seedGrant(
        { accounts, grants },
        {
          clientId: CLIENT_ID,
          resource: RESOURCE,
          scope: 'mcp:read mcp:write',
          now: clock(),
          lifetimeMs: 86_400_000,
        },
      )
    },
    sign(claims, header = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: es256.kid, ...header })
        .sign(signingKey)
    },
    claims(accountId, grantId) {
      return {
        iss: AS_ISSUER,
        aud: RESOURCE,
        sub: accountId,
        client_id: CLIENT_ID,
        jti: randomUUID(),
        scope: 'mcp:read mcp:write',
        grant_id: grantId,
        iat: fixture.nowSeconds,
        exp: fixture.nowSeconds + 300,
      }
    },
    async close() {
      await fixture.jwks.close()
      await server.close()
    },
  }
  return fixture
}
