import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'
import { dummyHash } from './dummy-hash.js'
import type { PasswordHasher } from './password.js'

/** A deterministic fake: `hash:<password>`; verify compares. Records every call. */
function recordingHasher(options: { failHashes?: number } = {}) {
  const calls: string[] = []
  let failures = options.failHashes ?? 0
  const hasher: PasswordHasher = {
    async hash(password) {
      calls.push(`hash:${password.length}`)
      if (failures > 0) {
        failures--
        throw new Error('busy')
      }
      return `hash:${password}`
    },
    async verify(encoded, password) {
      calls.push(`verify:${encoded}`)
      return encoded === `hash:${password}`
    },
    needsRehash: () => false,
  }
  return { hasher, calls }
}

describe('dummyHash', () => {
  it('runs a real verify against the hash of a forgotten random password and always answers false', async () => {
    const { hasher, calls } = recordingHasher()
    const fixed = new Uint8Array(32).fill(7)
    const dummy = dummyHash(hasher, { randomBytes: () => fixed })
    const randomPassword = Buffer.from(fixed).toString('base64url')
    // Even the one password that matches the dummy hash is answered false.
    await expect(dummy.verifyAgainstDummy(randomPassword)).resolves.toBe(false)
    await expect(dummy.verifyAgainstDummy('guess')).resolves.toBe(false)
    expect(calls).toEqual([
      `hash:${randomPassword.length}`,
      `verify:hash:${randomPassword}`,
      `verify:hash:${randomPassword}`,
    ])
  })

  it('computes the hash once for concurrent first callers, and warmup does it ahead of time', async () => {
    const { hasher, calls } = recordingHasher()
    const dummy = dummyHash(hasher)
    await dummy.warmup()
    await Promise.all([dummy.verifyAgainstDummy('a'), dummy.verifyAgainstDummy('b')])
    expect(calls.filter((call) => call.startsWith('hash:'))).toHaveLength(1)
    expect(calls.filter((call) => call.startsWith('verify:'))).toHaveLength(2)

    const other = recordingHasher()
    const lazy = dummyHash(other.hasher)
    await Promise.all([
      lazy.verifyAgainstDummy('a'),
      lazy.verifyAgainstDummy('b'),
      lazy.verifyAgainstDummy('c'),
    ])
    expect(other.calls.filter((call) => call.startsWith('hash:'))).toHaveLength(1)
  })

  it('propagates a failed computation like a real verify would, and retries it next time', async () => {
    const { hasher, calls } = recordingHasher({ failHashes: 1 })
    const dummy = dummyHash(hasher)
    await expect(dummy.verifyAgainstDummy('a')).rejects.toThrow('busy')
    await expect(dummy.verifyAgainstDummy('a')).resolves.toBe(false)
    expect(calls.filter((call) => call.startsWith('hash:'))).toHaveLength(2)
  })

  it('refuses unknown options and a missing hasher', () => {
    expect(() => dummyHash(recordingHasher().hasher, { random: () => new Uint8Array(32) } as never)).toThrow(
      ConfigurationError,
    )
    expect(() => dummyHash(undefined as unknown as PasswordHasher)).toThrow(ConfigurationError)
  })

  it('refuses a random source that answers the wrong length', async () => {
    const dummy = dummyHash(recordingHasher().hasher, { randomBytes: () => new Uint8Array(4) })
    await expect(dummy.verifyAgainstDummy('a')).rejects.toBeInstanceOf(LocalAccountError)
    await expect(dummy.warmup()).rejects.toMatchObject({ code: 'local.randomness_failed' })
  })
})
