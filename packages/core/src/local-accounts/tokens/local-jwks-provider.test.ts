import { beforeAll, describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalJWKSProvider } from './local-jwks-provider.js'
import { generateLocalSigningKey } from './signing-key.js'
import { LocalSigningKeyRing } from './signing-key-ring.js'

const ISSUER = 'https://app.example'
const JWKS_URI = 'https://app.example/.well-known/jwks.json'
const T0 = Date.UTC(2031, 0, 1)

let ring: LocalSigningKeyRing
beforeAll(async () => {
  ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date(T0), kid: 'k1' }) })
})

function provider() {
  const jwks = new LocalJWKSProvider({ ring, issuer: ISSUER, jwksUri: JWKS_URI, clock: () => T0 })
  jwks.register({ issuer: ISSUER, jwksUri: JWKS_URI, algorithms: ['EdDSA'] })
  return jwks
}

describe('LocalJWKSProvider', () => {
  it('answers the ring key for its own source, kid and algorithm', async () => {
    const selection = await provider().selectKey({
      issuer: ISSUER,
      jwksUri: JWKS_URI,
      kid: 'k1',
      alg: 'EdDSA',
    })
    expect(selection).toEqual({ kind: 'key', key: ring.active.verificationKey })
  })

  it('answers invalid for an unknown kid, another source, or an algorithm nobody registered', async () => {
    const jwks = provider()
    const request = { issuer: ISSUER, jwksUri: JWKS_URI, kid: 'k1', alg: 'EdDSA' } as const
    expect(await jwks.selectKey({ ...request, kid: 'k2' })).toEqual({
      kind: 'invalid',
      reason: 'jwks.unknown_key',
    })
    expect(await jwks.selectKey({ ...request, issuer: 'https://evil.example' })).toEqual({
      kind: 'invalid',
      reason: 'jwks.unregistered_source',
    })
    expect(await jwks.selectKey({ ...request, jwksUri: 'https://evil.example/jwks' })).toMatchObject({
      reason: 'jwks.unregistered_source',
    })
    expect(await jwks.selectKey({ ...request, alg: 'ES256' })).toEqual({
      kind: 'invalid',
      reason: 'jwks.algorithm_not_allowed',
    })
    const unregistered = new LocalJWKSProvider({ ring, issuer: ISSUER, jwksUri: JWKS_URI })
    expect(await unregistered.selectKey(request)).toMatchObject({ kind: 'invalid' })
  })

  it('refuses to register any other source, insecure URLs and unknown options', () => {
    const jwks = provider()
    expect(
      () => new LocalJWKSProvider({ ring, issuer: ISSUER, jwksUri: JWKS_URI, jwksUrl: JWKS_URI } as never),
    ).toThrow(ConfigurationError)
    expect(() => new LocalJWKSProvider({ ring: {}, issuer: ISSUER, jwksUri: JWKS_URI } as never)).toThrow(
      ConfigurationError,
    )
    expect(() =>
      jwks.register({ issuer: 'https://other.example', jwksUri: JWKS_URI, algorithms: ['EdDSA'] }),
    ).toThrow(ConfigurationError)
    expect(() =>
      jwks.register({ issuer: ISSUER, jwksUri: 'https://other.example/jwks', algorithms: ['EdDSA'] }),
    ).toThrow(ConfigurationError)
    expect(() =>
      jwks.register({ issuer: ISSUER, jwksUri: JWKS_URI, algorithms: ['HS256' as 'EdDSA'] }),
    ).toThrow(ConfigurationError)
    expect(() => new LocalJWKSProvider({ ring, issuer: ISSUER, jwksUri: 'http://app.example/jwks' })).toThrow(
      ConfigurationError,
    )
    expect(
      () => new LocalJWKSProvider({ ring, issuer: ISSUER, jwksUri: 'http://localhost:3000/jwks' }),
    ).toThrow(ConfigurationError)
    expect(
      () =>
        new LocalJWKSProvider({
          ring,
          issuer: 'http://localhost:3000',
          jwksUri: 'http://localhost:3000/jwks',
          allowInsecureLoopback: true,
        }),
    ).not.toThrow()
  })

  it('is unavailable once closed and refuses registration', async () => {
    const jwks = provider()
    await jwks.warmup()
    await jwks.close()
    expect(await jwks.selectKey({ issuer: ISSUER, jwksUri: JWKS_URI, kid: 'k1', alg: 'EdDSA' })).toEqual({
      kind: 'unavailable',
      reason: 'jwks.closed',
    })
    expect(() => jwks.register({ issuer: ISSUER, jwksUri: JWKS_URI, algorithms: ['EdDSA'] })).toThrow(
      ConfigurationError,
    )
  })
})
