import { generateKeyPairSync } from 'node:crypto'
import { inspect } from 'node:util'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import { ConfigurationError } from '@portcullis/core/errors'
import { describe, expect, it } from 'vitest'
import {
  type AuthorizationServerOptions,
  createAuthorizationServer,
  generateSigningKey,
} from '../src/index.js'
import { TestInteraction } from './support/test-interaction.js'

const accounts = new MemoryAccountStore()
const base = async (): Promise<AuthorizationServerOptions> => ({
  issuer: 'https://app.example/oauth',
  store: new MemoryOAuthServerStore({ accounts }),
  accounts,
  interactions: new TestInteraction('a'),
  resources: [{ indicator: 'https://app.example/mcp', scopes: { read: 'Read' } }],
  signingKeys: [await generateSigningKey()],
})

async function refusal(change: Partial<Record<keyof AuthorizationServerOptions, unknown>>): Promise<string> {
  const options = { ...(await base()), ...change } as AuthorizationServerOptions
  const error = await createAuthorizationServer(options).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ConfigurationError)
  return (error as ConfigurationError).code
}

describe('createAuthorizationServer refuses bad options at startup', () => {
  it.each([
    ['a relative issuer', { issuer: '/oauth' }, 'authorization_server.invalid_issuer'],
    [
      'an issuer with a query',
      { issuer: 'https://app.example/oauth?x=1' },
      'authorization_server.invalid_issuer',
    ],
    ['no resources', { resources: [] }, 'authorization_server.invalid_resources'],
    [
      'a resource with a fragment',
      { resources: [{ indicator: 'https://app.example/mcp#x', scopes: { read: 'Read' } }] },
      'authorization_server.invalid_resources',
    ],
    [
      'a relative resource',
      { resources: [{ indicator: '/mcp', scopes: { read: 'Read' } }] },
      'authorization_server.invalid_resources',
    ],
    [
      'duplicate resources',
      {
        resources: [
          { indicator: 'https://app.example/mcp', scopes: { read: 'Read' } },
          { indicator: 'https://app.example/mcp', scopes: { write: 'Write' } },
        ],
      },
      'authorization_server.invalid_resources',
    ],
    [
      'a token lifetime over an hour',
      {
        resources: [
          { indicator: 'https://app.example/mcp', scopes: { read: 'R' }, accessTokenTtlSeconds: 3601 },
        ],
      },
      'authorization_server.invalid_option',
    ],
    [
      'offline_access as a resource scope',
      { resources: [{ indicator: 'https://app.example/mcp', scopes: { offline_access: 'R' } }] },
      'authorization_server.invalid_resources',
    ],
    ['a store without the grants port', { store: { upsert() {} } }, 'authorization_server.invalid_store'],
    ['no interaction handler', { interactions: {} }, 'authorization_server.invalid_interactions'],
    ['short cookie keys', { cookieKeys: ['short'] }, 'authorization_server.invalid_option'],
    [
      'a 30 s document timeout',
      { clientIdMetadataDocuments: { fetchTimeoutMs: 30_000 } },
      'authorization_server.invalid_option',
    ],
    [
      'a 1 MB document bound',
      { clientIdMetadataDocuments: { maxBytes: 1 << 20 } },
      'authorization_server.invalid_option',
    ],
    [
      'a zero registration rate',
      { registration: { rateLimit: { perMinute: 0 } } },
      'authorization_server.invalid_option',
    ],
    ['no signing key', { signingKeys: [] }, 'authorization_server.invalid_signing_key'],
  ])('%s', async (_name, change, code) => {
    expect(await refusal(change)).toBe(code)
  })

  it.each([
    [
      'trustedProxies at the top level (it belongs under registration)',
      { trustedProxies: ['10.0.0.1'] },
      'trustedProxies',
    ],
    ['a misspelt top-level option', { resource: [] }, 'resource'],
    [
      'an unknown registration option',
      { registration: { trustedProxy: ['10.0.0.1'] } },
      'registration.trustedProxy',
    ],
    [
      'an unknown rate-limit option',
      { registration: { rateLimit: { perMinut: 5 } } },
      'registration.rateLimit.perMinut',
    ],
    [
      'an unknown document option',
      { clientIdMetadataDocuments: { allowLoopback: true } },
      'clientIdMetadataDocuments.allowLoopback',
    ],
    [
      'an unknown resource option',
      { resources: [{ indicator: 'https://app.example/mcp', scopes: { read: 'R' }, ttl: 60 }] },
      'resources[0].ttl',
    ],
    [
      'an unknown clients option',
      { clients: { privateUseSchemes: ['cursor'] } },
      'clients.privateUseSchemes',
    ],
  ])('refuses %s with configuration.unknown_option naming it', async (_name, change, path) => {
    const options = { ...(await base()), ...change } as AuthorizationServerOptions
    await expect(createAuthorizationServer(options)).rejects.toMatchObject({
      name: 'ConfigurationError',
      code: 'configuration.unknown_option',
      option: `createAuthorizationServer.${path}`,
    })
  })

  it('refuses an IPv6 prefix length out of 0..128 and a rate-limit store that is not one', async () => {
    for (const ipv6PrefixLength of [-1, 129, 64.5]) {
      expect(await refusal({ registration: { rateLimit: { ipv6PrefixLength } } })).toBe(
        'authorization_server.invalid_option',
      )
    }
    expect(await refusal({ registration: { rateLimits: { consume() {} } } })).toBe(
      'authorization_server.invalid_option',
    )
  })

  it('refuses private-use redirect schemes that are web, script or local schemes, or malformed', async () => {
    const refused: unknown[] = [
      'http',
      'https',
      'HTTPS',
      'javascript',
      'JavaScript',
      'data',
      'file',
      'vbscript',
      'blob',
      'about',
      'cursor:',
      'cursor://',
      '',
      '1cursor',
      'cur sor',
      'cur_sor',
      'cursor\n',
      42,
      null,
    ]
    for (const scheme of refused) {
      const error = await createAuthorizationServer({
        ...(await base()),
        clients: { privateUseRedirectSchemes: [scheme as string] },
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect({ scheme, error }).toEqual({ scheme, error: expect.any(ConfigurationError) })
      expect(error).toMatchObject({
        code: 'authorization_server.invalid_option',
        option: 'createAuthorizationServer.clients.privateUseRedirectSchemes',
      })
    }
    for (const clients of [{ privateUseRedirectSchemes: 'cursor' }, 'cursor', null]) {
      expect(await refusal({ clients })).toBe('authorization_server.invalid_option')
    }
  })

  it('accepts private-use schemes, reverse-domain names included, and none at all', async () => {
    for (const privateUseRedirectSchemes of [['cursor'], ['com.example.app', 'Cursor', 'x-app+v1'], []]) {
      const server = await createAuthorizationServer({
        ...(await base()),
        clients: { privateUseRedirectSchemes },
      })
      await server.close()
    }
  })

  it('refuses symmetric, public, none-algorithm, weak RSA and duplicate signing keys', async () => {
    const key = await generateSigningKey()
    const { d: _d, ...publicKey } = key
    const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' })
    for (const signingKeys of [
      [{ kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0', alg: 'HS256' }],
      [publicKey],
      [{ ...key, alg: 'none' }],
      [{ ...key, alg: 'RS256' }],
      [{ ...rsa1024, alg: 'RS256' }],
      [{ ...key, use: 'enc' }],
      [key, { ...(await generateSigningKey()), kid: key.kid }],
    ]) {
      expect(await refusal({ signingKeys })).toBe('authorization_server.invalid_signing_key')
    }
  })
})

describe('the server object', () => {
  it('never shows the signing keys or cookie keys in inspect, toString or JSON output', async () => {
    const options = await base()
    const cookieKey = 'cookie-key-cookie-key-cookie-key-0001'
    const server = await createAuthorizationServer({ ...options, cookieKeys: [cookieKey] })
    try {
      const secret = options.signingKeys[0]?.d as string
      for (const text of [
        inspect(server, { depth: 8 }),
        String(server),
        JSON.stringify(server.provider),
        inspect(server.provider, { depth: 4 }),
      ]) {
        expect(text).not.toContain(secret)
        expect(text).not.toContain(cookieKey)
      }
      expect(inspect(server)).toBe('AuthorizationServer { issuer: https://app.example/oauth }')
      const metadata = await server.metadata()
      expect(metadata).toMatchObject({
        issuer: 'https://app.example/oauth',
        token_endpoint: 'https://app.example/oauth/token',
        jwks_uri: 'https://app.example/oauth/jwks',
        authorization_endpoint: 'https://app.example/oauth/auth',
      })
      expect(server.metadataPath).toBe('/.well-known/oauth-authorization-server/oauth')
    } finally {
      await server.close()
    }
  })

  it('generates ring keys of every allowed algorithm, with a thumbprint kid', async () => {
    for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const) {
      const key = await generateSigningKey(alg)
      expect(key).toMatchObject({ alg, use: 'sig' })
      expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(key.d).toBeTypeOf('string')
    }
  })
})
