import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { afterAll, describe, expect, it } from 'vitest'
import { seedGrant } from '../../core/test/support/seed-grant.js'
import { PostgresRateLimitStore } from '../src/index.js'
import { CLIENT_ID, RESOURCE, startTestAuthorizationServer } from './support/access-tokens.js'
import { migratedDatabase } from './support/database.js'

/**
 * DPoP proofs across two app instances: each has its own pool and its own `oauthAccessTokens` mechanism,
 * and both remember proof `jti`s in the shared `PostgresRateLimitStore`. A proof used on one instance is
 * refused on the other, and a proof raced to both is accepted exactly once.
 */
const db = await migratedDatabase()
const as = await startTestAuthorizationServer()
const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
afterAll(async () => {
  await jwks.close()
  await as.close()
  await db.close()
})

const accounts = new MemoryAccountStore()
const grants = new MemoryOAuthServerStore({ accounts })
const notices = new MemoryRevocationNotices()

const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const { crv, kty, x, y } = pair.publicKey.export({ format: 'jwk' })
const jwk = { crv, kty, x, y }
const thumbprint = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url')

function proof(token: string): string {
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk }
  const payload = {
    jti: randomUUID(),
    htm: 'POST',
    htu: RESOURCE,
    iat: Math.floor(Date.now() / 1000),
    ath: createHash('sha256').update(token).digest('base64url'),
  }
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`
  const signature = sign('sha256', Buffer.from(input), { key: pair.privateKey, dsaEncoding: 'ieee-p1363' })
  return `${input}.${b64u(signature)}`
}

function instance() {
  return oauthAccessTokens({
    issuer: 'https://auth.app.example',
    resource: RESOURCE,
    jwksUri: as.jwksUri,
    jwks,
    grants,
    notices,
    dpop: {
      origins: [new URL(RESOURCE).origin],
      replay: new PostgresRateLimitStore({ client: db.connect(2) }),
    },
  })
}

async function boundToken() {
  const { accountId, grantId } = await seedGrant(
    { accounts, grants },
    { clientId: CLIENT_ID, resource: RESOURCE },
  )
  return as.token(accountId, grantId, { cnf: { jkt: thumbprint } })
}

async function present(mechanism: ReturnType<typeof instance>, token: string, dpop: string) {
  const headers: Record<string, string> = { authorization: `DPoP ${token}`, dpop }
  const outcome = await mechanism.authenticate({
    header: (name) => headers[name],
    cookie: () => undefined,
    method: 'POST',
    path: '/mcp',
  })
  return outcome.kind === 'invalid' ? outcome.reason : outcome.kind
}

describe('DPoP jti across instances (PostgresRateLimitStore)', () => {
  const a = instance()
  const b = instance()

  it('refuses on instance B a proof already used on instance A', async () => {
    const token = await boundToken()
    const used = proof(token)
    expect(await present(a, token, used)).toBe('authenticated')
    expect(await present(b, token, used)).toBe('oauth: dpop.replayed')
    expect(await present(b, token, proof(token))).toBe('authenticated')
  })

  it('accepts a proof raced to both instances exactly once', async () => {
    const token = await boundToken()
    for (let round = 0; round < 10; round += 1) {
      const raced = proof(token)
      const outcomes = await Promise.all([present(a, token, raced), present(b, token, raced)])
      expect(outcomes.sort()).toEqual(['authenticated', 'oauth: dpop.replayed'])
    }
  })
})
