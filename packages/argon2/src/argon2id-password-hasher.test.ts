import { hash as rawHash } from '@node-rs/argon2'
import { ConfigurationError } from '@portcullis/core/errors'
import {
  boundedPasswordHasher,
  dummyHash,
  LocalAccountError,
  PasswordHashingBusyError,
} from '@portcullis/core/local-accounts'
import { describe, expect, it } from 'vitest'
import { argon2idPasswordHasher, OWASP_ARGON2ID_PARAMETERS } from './argon2id-password-hasher.js'

/** Small parameters keep the suite fast; one test below runs the OWASP defaults. */
const FAST = { memoryCostKiB: 256, timeCost: 1, parallelism: 1, allowWeakParametersForTests: true } as const
const hasher = argon2idPasswordHasher(FAST)

describe('argon2idPasswordHasher', () => {
  it('hashes to a PHC argon2id string with a fresh salt, and verifies only the right password', async () => {
    const first = await hasher.hash('correct horse battery staple')
    const second = await hasher.hash('correct horse battery staple')
    expect(first).toMatch(/^\$argon2id\$v=19\$m=256,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(second).not.toBe(first)
    expect(first).not.toContain('correct')
    await expect(hasher.verify(first, 'correct horse battery staple')).resolves.toBe(true)
    await expect(hasher.verify(second, 'correct horse battery staple')).resolves.toBe(true)
    await expect(hasher.verify(first, 'correct horse battery stapler')).resolves.toBe(false)
    await expect(hasher.verify(first, 'Correct horse battery staple')).resolves.toBe(false)
    await expect(hasher.verify(first, '')).resolves.toBe(false)
  })

  it('handles non-ASCII passwords byte for byte', async () => {
    const encoded = await hasher.hash('pässwörd-密码-🔑')
    await expect(hasher.verify(encoded, 'pässwörd-密码-🔑')).resolves.toBe(true)
    // The same text in decomposed form is a different byte string.
    await expect(hasher.verify(encoded, 'pässwörd-密码-🔑'.normalize('NFD'))).resolves.toBe(false)
  })

  it('uses the OWASP parameters by default', async () => {
    const owasp = argon2idPasswordHasher()
    expect(owasp.parameters).toEqual({ memoryCostKiB: 19_456, timeCost: 2, parallelism: 1, outputLength: 32 })
    expect(OWASP_ARGON2ID_PARAMETERS).toEqual(owasp.parameters)
    const encoded = await owasp.hash('a real password')
    expect(encoded.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true)
    await expect(owasp.verify(encoded, 'a real password')).resolves.toBe(true)
    await expect(owasp.verify(encoded, 'a real passwore')).resolves.toBe(false)
    expect(owasp.needsRehash(encoded)).toBe(false)
    expect(owasp.needsRehash(await hasher.hash('a real password'))).toBe(true)
  })

  it('answers false, never throws, for malformed, foreign and tampered hashes', async () => {
    const encoded = await hasher.hash('password-1')
    const [, , version, params, salt, digest] = encoded.split('$')
    const flipped = `${(digest as string).startsWith('A') ? 'B' : 'A'}${(digest as string).slice(1)}`
    const candidates = [
      '',
      'garbage',
      '$argon2id$',
      `$argon2id$${version}$${params}$${salt}`,
      `$argon2id$${version}$${params}$${salt}$${flipped}`,
      `$argon2id$${version}$${params}$!!!!$${digest}`,
      encoded.replace('m=256', 'm=512'),
      encoded.replace('t=1', 't=2'),
      // Foreign schemes and other argon2 variants are not checked at all.
      '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.qsvzOXJXx6bmEd.0tmHCdZpg3yzG',
      await rawHash('password-1', { algorithm: 1, memoryCost: 256, timeCost: 1 }),
      await rawHash('password-1', { algorithm: 0, memoryCost: 256, timeCost: 1 }),
      await rawHash('password-1', { version: 0, memoryCost: 256, timeCost: 1 }),
      `${encoded}${'A'.repeat(600)}`,
      42 as unknown as string,
      undefined as unknown as string,
    ]
    for (const candidate of candidates) {
      await expect(hasher.verify(candidate, 'password-1'), String(candidate)).resolves.toBe(false)
    }
    await expect(hasher.verify(encoded, 42 as unknown as string)).resolves.toBe(false)
    await expect(hasher.verify(encoded, 'x'.repeat(5000))).resolves.toBe(false)
  })

  it('refuses to verify hashes demanding more memory than allowed (a planted hash is not a DoS)', async () => {
    const small = argon2idPasswordHasher({ ...FAST, maxVerifyMemoryKiB: 512 })
    const heavy = await rawHash('password-1', { algorithm: 2, memoryCost: 1024, timeCost: 1 })
    await expect(small.verify(heavy, 'password-1')).resolves.toBe(false)
    await expect(hasher.verify(heavy, 'password-1')).resolves.toBe(true)
  })

  it('needsRehash compares the encoded parameters with the configured ones', async () => {
    const encoded = await hasher.hash('password-1')
    expect(hasher.needsRehash(encoded)).toBe(false)
    const stronger = argon2idPasswordHasher({ ...FAST, memoryCostKiB: 512 })
    expect(stronger.needsRehash(encoded)).toBe(true)
    expect(argon2idPasswordHasher({ ...FAST, timeCost: 2 }).needsRehash(encoded)).toBe(true)
    expect(argon2idPasswordHasher({ ...FAST, parallelism: 2 }).needsRehash(encoded)).toBe(true)
    expect(argon2idPasswordHasher({ ...FAST, outputLength: 64 }).needsRehash(encoded)).toBe(true)
    // The stronger hasher still verifies the old hash, so the login can rehash it.
    await expect(stronger.verify(encoded, 'password-1')).resolves.toBe(true)
    for (const other of [
      'garbage',
      '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.qsvzOXJXx6bmEd.0tmHCdZpg3yzG',
      await rawHash('password-1', { algorithm: 1, memoryCost: 256, timeCost: 1 }),
    ]) {
      expect(hasher.needsRehash(other)).toBe(true)
    }
  })

  it('refuses parameters below the OWASP minimums unless explicitly for tests', () => {
    const weak = [
      { memoryCostKiB: 19_455 },
      { timeCost: 1 },
      { memoryCostKiB: 9_216, timeCost: 3 },
      { memoryCostKiB: 4096, timeCost: 10 },
    ]
    for (const options of weak) {
      expect(() => argon2idPasswordHasher(options)).toThrow(
        expect.objectContaining({ code: 'argon2.weak_parameters' }),
      )
      expect(() => argon2idPasswordHasher({ ...options, allowWeakParametersForTests: true })).not.toThrow()
    }
    // OWASP's equivalent rows are accepted.
    for (const [memoryCostKiB, timeCost] of [
      [47_104, 1],
      [12_288, 3],
      [9_216, 4],
      [7_168, 5],
    ] as const) {
      expect(() => argon2idPasswordHasher({ memoryCostKiB, timeCost })).not.toThrow()
    }
  })

  it('refuses nonsensical and unknown options with ConfigurationError', () => {
    const bad = [
      { timeCost: 0, allowWeakParametersForTests: true },
      { parallelism: 0 },
      { parallelism: 17 },
      { memoryCostKiB: 7, allowWeakParametersForTests: true },
      { memoryCostKiB: 1.5 },
      { outputLength: 8 },
      { maxVerifyMemoryKiB: 1024 },
      { memoryCost: 65536 },
      { timeCost: '3' },
    ]
    for (const options of bad) {
      expect(() => argon2idPasswordHasher(options as never), JSON.stringify(options)).toThrow(
        ConfigurationError,
      )
    }
  })

  it('refuses to hash a non-string or an oversized password, without echoing it', async () => {
    const error = await hasher.hash(`secret-${'x'.repeat(5000)}`).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(LocalAccountError)
    expect(JSON.stringify(error)).not.toContain('secret-')
    await expect(hasher.hash(undefined as unknown as string)).rejects.toBeInstanceOf(LocalAccountError)
  })

  it('works behind the core concurrency cap and dummy hash', async () => {
    const bounded = boundedPasswordHasher(hasher, { concurrency: 1, maxQueued: 1 })
    const results = await Promise.allSettled([
      bounded.hash('password-1'),
      bounded.hash('password-2'),
      bounded.hash('password-3'),
    ])
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected'])
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(PasswordHashingBusyError)
    const dummy = dummyHash(bounded)
    await expect(dummy.verifyAgainstDummy('password-1')).resolves.toBe(false)
  })
})
