import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'
import { generateLocalSigningKey } from './signing-key.js'
import { importLocalSigningKeyRing, LocalSigningKeyRing } from './signing-key-ring.js'

const T0 = new Date('2031-01-01T00:00:00Z')
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000)

async function ringOf(options: { maxAccessTokenLifetimeSeconds?: number; clockSkewSeconds?: number } = {}) {
  const k1 = await generateLocalSigningKey({ now: T0, kid: 'k1' })
  return { ring: new LocalSigningKeyRing({ active: k1, ...options }), k1 }
}

describe('LocalSigningKeyRing', () => {
  it('publishes the active key as a public-only JWKS document', async () => {
    const { ring, k1 } = await ringOf()
    const document = ring.jwks(T0)
    expect(document).toEqual({ keys: [k1.publicJwk] })
    for (const key of document.keys) {
      expect(key).toMatchObject({ kid: 'k1', alg: 'EdDSA', use: 'sig' })
      expect(key).not.toHaveProperty('d')
    }
    expect(ring.verificationKey('k1', 'EdDSA', T0)).toBe(k1.verificationKey)
    expect(ring.verificationKey('k1', 'ES256', T0)).toBeUndefined()
    expect(ring.verificationKey('nope', 'EdDSA', T0)).toBeUndefined()
  })

  it('keeps a retired key published for max lifetime + skew after rotation, then drops it', async () => {
    const { ring, k1 } = await ringOf({ maxAccessTokenLifetimeSeconds: 600, clockSkewSeconds: 30 })
    const k2 = await generateLocalSigningKey({ alg: 'ES256', now: at(100), kid: 'k2' })
    ring.rotate(k2, { now: at(100) })
    expect(ring.active).toBe(k2)
    expect(ring.jwks(at(100)).keys.map((key) => key.kid)).toEqual(['k2', 'k1'])
    expect(ring.jwks(at(729)).keys.map((key) => key.kid)).toEqual(['k2', 'k1'])
    expect(ring.verificationKey('k1', 'EdDSA', at(729))).toBe(k1.verificationKey)
    expect(ring.jwks(at(730)).keys.map((key) => key.kid)).toEqual(['k2'])
    expect(ring.verificationKey('k1', 'EdDSA', at(730))).toBeUndefined()
    expect(ring.retired.map((entry) => entry.publicJwk.kid)).toEqual(['k1'])
    expect(ring.prune(at(730))).toBe(1)
    expect(ring.retired).toEqual([])
  })

  it('prunes ended windows on rotation and refuses a reused kid', async () => {
    const { ring } = await ringOf({ maxAccessTokenLifetimeSeconds: 60, clockSkewSeconds: 0 })
    ring.rotate(await generateLocalSigningKey({ now: at(0), kid: 'k2' }), { now: at(0) })
    ring.rotate(await generateLocalSigningKey({ now: at(100), kid: 'k3' }), { now: at(100) })
    expect(ring.retired.map((entry) => entry.publicJwk.kid)).toEqual(['k2'])
    await expect(async () =>
      ring.rotate(await generateLocalSigningKey({ now: T0, kid: 'k2' }), { now: at(101) }),
    ).rejects.toThrow(LocalAccountError)
    await expect(async () =>
      ring.rotate(await generateLocalSigningKey({ now: T0, kid: 'k3' }), { now: at(101) }),
    ).rejects.toThrow(LocalAccountError)
    expect(ring.active.kid).toBe('k3')
  })

  it('exports the active private key and only public retired keys, and imports them back', async () => {
    const { ring, k1 } = await ringOf({ maxAccessTokenLifetimeSeconds: 600 })
    ring.rotate(await generateLocalSigningKey({ alg: 'ES256', now: at(10), kid: 'k2' }), { now: at(10) })
    const exported = JSON.parse(JSON.stringify(ring.exportPrivate()))
    expect(exported.active.d).toEqual(ring.active.exportPrivateJwk().d)
    expect(exported.retired).toEqual([{ jwk: k1.publicJwk, retiredAt: at(10).toISOString() }])
    expect(JSON.stringify(exported.retired)).not.toContain(k1.exportPrivateJwk().d)

    const restored = await importLocalSigningKeyRing(exported, { maxAccessTokenLifetimeSeconds: 600 })
    expect(restored.active.kid).toBe('k2')
    expect(restored.active.createdAt).toEqual(at(10))
    expect(restored.jwks(at(20))).toEqual(ring.jwks(at(20)))
    expect(restored.verificationKey('k1', 'EdDSA', at(20))).toBeDefined()
    expect(restored.verificationKey('k1', 'EdDSA', at(640))).toBeUndefined()
  })

  it('refuses an exported ring with private retired keys, duplicates or foreign keys', async () => {
    const { ring, k1 } = await ringOf()
    ring.rotate(await generateLocalSigningKey({ now: T0, kid: 'k2' }), { now: T0 })
    const exported = ring.exportPrivate()
    const variants = [
      { ...exported, retired: [{ jwk: k1.exportPrivateJwk(), retiredAt: T0.toISOString() }] },
      { ...exported, retired: [...exported.retired, ...exported.retired] },
      { ...exported, retired: [{ jwk: { ...k1.publicJwk, kid: 'k2' }, retiredAt: T0.toISOString() }] },
      { ...exported, retired: [{ jwk: { ...k1.publicJwk, kty: 'RSA' }, retiredAt: T0.toISOString() }] },
      { ...exported, retired: [{ jwk: k1.publicJwk, retiredAt: 'not a date' }] },
      { ...exported, retired: undefined },
    ]
    for (const variant of variants) {
      await expect(importLocalSigningKeyRing(variant as never)).rejects.toBeInstanceOf(LocalAccountError)
    }
  })

  it('shows no key material in toJSON, toString or inspect', async () => {
    const { ring, k1 } = await ringOf()
    const d = k1.exportPrivateJwk().d
    ring.rotate(await generateLocalSigningKey({ now: T0, kid: 'k2' }), { now: T0 })
    const d2 = ring.active.exportPrivateJwk().d
    for (const rendered of [
      JSON.stringify(ring),
      String(ring),
      inspect(ring, { depth: 9, showHidden: true }),
    ]) {
      expect(rendered).not.toContain(d)
      expect(rendered).not.toContain(d2)
    }
    expect(ring.toJSON()).toEqual({ active: 'k2', retired: [{ kid: 'k1', retiredAt: T0.toISOString() }] })
  })

  it('refuses bad limits, unknown options and a non-key', async () => {
    const active = await generateLocalSigningKey({ now: T0 })
    expect(() => new LocalSigningKeyRing({ active, maxLifetimeSeconds: 60 } as never)).toThrow(
      ConfigurationError,
    )
    expect(() => new LocalSigningKeyRing({ active: active.exportPrivateJwk() } as never)).toThrow(
      ConfigurationError,
    )
    expect(() =>
      new LocalSigningKeyRing({ active } as never).rotate(active.publicJwk as never, { now: T0 }),
    ).toThrow(LocalAccountError)
    await expect(generateLocalSigningKey({ now: T0, algorithm: 'ES256' } as never)).rejects.toBeInstanceOf(
      ConfigurationError,
    )
    for (const options of [
      { maxAccessTokenLifetimeSeconds: 0 },
      { maxAccessTokenLifetimeSeconds: 1.5 },
      { clockSkewSeconds: -1 },
    ]) {
      expect(() => new LocalSigningKeyRing({ active, ...options })).toThrow(ConfigurationError)
    }
  })
})
