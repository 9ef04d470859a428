import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type AccessTokenFixture,
  AS_ISSUER,
  CLIENT_ID,
  RESOURCE,
  startAccessTokenFixture,
} from '../../test/support/access-token-fixture.js'
import { generateTestKey, signCompact } from '../../test/support/jwt.js'
import { bearer } from '../../test/support/workload-fixture.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { oauthAccessTokens } from './access-token-mechanism.js'

let fixture: AccessTokenFixture
const start = Math.floor(Date.UTC(2030, 0, 1) / 1000)

beforeAll(async () => {
  fixture = await startAccessTokenFixture()
})
afterAll(() => fixture.close())
beforeEach(() => {
  fixture.nowSeconds = start
})

async function expectInvalid(mechanism: AuthenticationMechanism, token: string, reason: string) {
  const outcome = await bearer(mechanism, token)
  expect(outcome).toEqual({ kind: 'invalid', reason: `oauth: ${reason}` })
}

describe('oauthAccessTokens: a valid token', () => {
  it('authenticates the account as a user, narrowed to the token scopes, with the grant as evidence', async () => {
    const { accountId, grantId } = await fixture.grant()
    const claims: Record<string, unknown> = {
      ...fixture.claims(accountId, grantId),
      auth_time: start - 60,
      acr: 'mfa',
    }
    const outcome = await bearer(fixture.mechanism(), await fixture.sign(claims))
    expect(outcome).toEqual({
      kind: 'authenticated',
      principal: { id: accountId, kind: 'user' },
      evidence: {
        mechanism: 'oauth',
        credentialType: 'oauth-access-token',
        attributes: {
          issuer: AS_ISSUER,
          clientId: CLIENT_ID,
          grantId,
          jti: claims.jti as string,
          kid: fixture.es256.kid,
          alg: 'ES256',
          authTime: start - 60,
          acr: 'mfa',
        },
        restrictions: { scopes: ['mcp:read', 'mcp:write'] },
        expiresAt: new Date((start + 300) * 1000),
      },
    })
  })

  it('accepts aud as a one-element array, and no credential is none', async () => {
    const { accountId, grantId } = await fixture.grant()
    const token = await fixture.sign({ ...fixture.claims(accountId, grantId), aud: [RESOURCE] })
    expect((await bearer(fixture.mechanism(), token)).kind).toBe('authenticated')
    expect((await bearer(fixture.mechanism(), undefined)).kind).toBe('none')
    expect((await bearer(fixture.mechanism(), `${token} x`)).kind).toBe('invalid')
  })
})

describe('oauthAccessTokens: sharing the bearer header', () => {
  it("answers none to opaque tokens and other issuers' JWTs, invalid to bad tokens naming its issuer", async () => {
    const { accountId, grantId } = await fixture.grant()
    const strict = fixture.mechanism()
    const shared = fixture.mechanism({ shareBearerHeader: true })
    const foreign = await fixture.sign({
      ...fixture.claims(accountId, grantId),
      iss: 'https://workloads.example',
    })
    expect((await bearer(strict, foreign)).kind).toBe('invalid')
    expect((await bearer(shared, foreign)).kind).toBe('none')
    expect((await bearer(shared, 'opaque-local-access-token')).kind).toBe('none')
    const wrongResource = await fixture.sign({
      ...fixture.claims(accountId, grantId),
      aud: 'https://other.example',
    })
    expect((await bearer(shared, wrongResource)).kind).toBe('invalid')
    expect((await bearer(shared, await fixture.sign(fixture.claims(accountId, grantId)))).kind).toBe(
      'authenticated',
    )
  })
})

describe('oauthAccessTokens: adversarial tokens', () => {
  let accountId: string
  let grantId: string
  let mechanism: AuthenticationMechanism
  beforeAll(async () => {
    ;({ accountId, grantId } = await fixture.grant())
    mechanism = fixture.mechanism({ cache: false })
  })
  const claims = (extra: Record<string, unknown> = {}) => ({
    ...fixture.claims(accountId, grantId),
    ...extra,
  })

  it('refuses a token for another resource, or for several', async () => {
    const other = await fixture.sign(claims({ aud: 'https://other.example/mcp' }))
    await expectInvalid(mechanism, other, 'jwt.audience_mismatch')
    const both = await fixture.sign(claims({ aud: [RESOURCE, 'https://other.example/mcp'] }))
    await expectInvalid(mechanism, both, 'jwt.audience_not_exact')
  })

  it("refuses another issuer's iss and a token signed by another issuer's key under our kid", async () => {
    await expectInvalid(
      mechanism,
      await fixture.sign(claims({ iss: 'https://evil.example' })),
      'jwt.issuer_mismatch',
    )
    const stranger = generateTestKey('ES256', fixture.es256.kid)
    const forged = signCompact({
      header: { alg: 'ES256', typ: 'at+jwt', kid: fixture.es256.kid },
      payload: claims(),
      key: stranger,
    })
    await expectInvalid(mechanism, forged, 'jwt.bad_signature')
  })

  it('refuses alg none, signed or unsigned', async () => {
    const payload = Buffer.from(JSON.stringify(claims())).toString('base64url')
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: fixture.es256.kid }))
    expect((await bearer(mechanism, `${header.toString('base64url')}.${payload}.`)).kind).toBe('invalid')
    const signed = signCompact({
      header: { alg: 'none', typ: 'at+jwt', kid: fixture.es256.kid },
      payload: claims(),
      key: fixture.es256,
    })
    await expectInvalid(mechanism, signed, 'jwt.algorithm_not_allowed')
  })

  it('refuses HS256 tokens HMAC-signed with the public key bytes, even with RS256 also allowed', async () => {
    const wide = fixture.mechanism({ cache: false, algorithms: ['ES256', 'RS256'] })
    for (const key of [fixture.es256, fixture.rs256]) {
      const pem = key.publicKey.export({ format: 'pem', type: 'spki' })
      for (const secret of [pem, JSON.stringify(key.jwk)]) {
        const token = signCompact({
          header: { alg: 'HS256', typ: 'at+jwt', kid: key.kid },
          payload: claims(),
          key: { hmacSecret: secret as string },
        })
        await expectInvalid(wide, token, 'jwt.algorithm_not_allowed')
      }
    }
  })

  it('refuses an ES256 key under an RS256 header, and RS256 when only ES256 is pinned', async () => {
    const wide = fixture.mechanism({ cache: false, algorithms: ['ES256', 'RS256'] })
    const confused = signCompact({
      header: { alg: 'RS256', typ: 'at+jwt', kid: fixture.es256.kid },
      payload: claims(),
      key: fixture.es256,
    })
    expect((await bearer(wide, confused)).kind).toBe('invalid')
    const rsa = signCompact({
      header: { alg: 'RS256', typ: 'at+jwt', kid: fixture.rs256.kid },
      payload: claims(),
      key: fixture.rs256,
    })
    expect((await bearer(wide, rsa)).kind).toBe('authenticated')
    await expectInvalid(mechanism, rsa, 'jwt.algorithm_not_allowed')
  })

  it('refuses expired and not-yet-valid tokens beyond the skew', async () => {
    await expectInvalid(
      mechanism,
      await fixture.sign(claims({ iat: start - 400, exp: start - 31 })),
      'jwt.expired',
    )
    await expectInvalid(mechanism, await fixture.sign(claims({ nbf: start + 60 })), 'jwt.not_yet_valid')
    expect((await bearer(mechanism, await fixture.sign(claims({ nbf: start + 20 })))).kind).toBe(
      'authenticated',
    )
  })

  it('refuses a typ other than at+jwt, or none', async () => {
    await expectInvalid(mechanism, await fixture.sign(claims(), { typ: 'JWT' }), 'jwt.bad_typ')
    await expectInvalid(mechanism, await fixture.sign(claims(), { typ: undefined }), 'jwt.missing_typ')
  })

  it('refuses a token without grant_id, client_id, jti or scope', async () => {
    await expectInvalid(mechanism, await fixture.sign(claims({ grant_id: undefined })), 'jwt.bad_grant_id')
    await expectInvalid(mechanism, await fixture.sign(claims({ grant_id: 42 })), 'jwt.bad_grant_id')
    await expectInvalid(mechanism, await fixture.sign(claims({ client_id: undefined })), 'jwt.bad_client_id')
    await expectInvalid(mechanism, await fixture.sign(claims({ jti: undefined })), 'jwt.bad_jti')
    await expectInvalid(mechanism, await fixture.sign(claims({ scope: undefined })), 'jwt.missing_scope')
  })

  it('refuses a tampered payload', async () => {
    const other = await fixture.grant()
    const [head, , signature] = (await fixture.sign(claims())).split('.')
    const payload = Buffer.from(JSON.stringify(claims({ sub: other.accountId }))).toString('base64url')
    await expectInvalid(mechanism, `${head}.${payload}.${signature}`, 'jwt.bad_signature')
    const widened = Buffer.from(JSON.stringify(claims({ scope: 'mcp:read mcp:admin' }))).toString('base64url')
    await expectInvalid(mechanism, `${head}.${widened}.${signature}`, 'jwt.bad_signature')
  })

  it('refuses a token whose sub or client_id is not the grant’s', async () => {
    const other = await fixture.grant()
    await expectInvalid(
      mechanism,
      await fixture.sign(claims({ sub: other.accountId })),
      'grant_account_mismatch',
    )
    await expectInvalid(
      mechanism,
      await fixture.sign(claims({ client_id: 'another-client' })),
      'grant_client_mismatch',
    )
    await expectInvalid(
      mechanism,
      await fixture.sign(claims({ grant_id: 'grant-unknown' })),
      'grant_not_active',
    )
  })
})

describe('oauthAccessTokens: configuration', () => {
  it('refuses HMAC or none algorithms, a blank resource and missing grants at startup', () => {
    const base = {
      issuer: AS_ISSUER,
      resource: RESOURCE,
      jwksUri: fixture.server.url,
      jwks: fixture.jwks,
      grants: fixture.grants,
      notices: fixture.notices,
    }
    const code = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return isPortcullisError(error) ? error.code : 'not a PortcullisError'
      }
      return 'no error'
    }
    expect(code(() => oauthAccessTokens({ ...base, algorithms: ['HS256' as never] }))).toBe(
      'oauth_access_tokens.unsupported_algorithm',
    )
    expect(code(() => oauthAccessTokens({ ...base, algorithms: ['none' as never] }))).toBe(
      'oauth_access_tokens.unsupported_algorithm',
    )
    expect(code(() => oauthAccessTokens({ ...base, resource: ' ' }))).toBe(
      'oauth_access_tokens.invalid_config',
    )
    const { grants: _grants, ...withoutGrants } = base
    expect(code(() => oauthAccessTokens(withoutGrants as never))).toBe('configuration.missing_option')
  })

  it('describes itself as an HTTP bearer scheme', () => {
    expect(fixture.mechanism({ name: 'mcp-clients', default: false })).toMatchObject({
      name: 'mcp-clients',
      default: false,
      securityScheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    })
  })
})
