import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { PasswordHashingBusyError } from '../errors.js'
import { boundedPasswordHasher } from './bounded-password-hasher.js'
import type { PasswordHasher } from './password.js'

/** A hasher whose operations finish only when the test says so, recording the order they started in. */
function gatedHasher() {
  const started: string[] = []
  const gates: { label: string; open: () => void; fail: (error: Error) => void }[] = []
  let running = 0
  let peak = 0
  const operation = (label: string, value: string) =>
    new Promise<string>((resolve, reject) => {
      started.push(label)
      running++
      peak = Math.max(peak, running)
      const done = () => {
        running--
      }
      gates.push({
        label,
        open: () => {
          done()
          resolve(value)
        },
        fail: (error) => {
          done()
          reject(error)
        },
      })
    })
  const hasher: PasswordHasher = {
    hash: (password) => operation(`hash:${password}`, `hashed:${password}`),
    verify: (encoded, password) =>
      operation(`verify:${password}`, 'true').then(() => encoded === `hashed:${password}`),
    needsRehash: (encoded) => encoded.startsWith('old:'),
  }
  return { hasher, started, gates, peak: () => peak }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('boundedPasswordHasher', () => {
  it('runs at most `concurrency` operations and starts queued ones first in, first out', async () => {
    const inner = gatedHasher()
    const bounded = boundedPasswordHasher(inner.hasher, { concurrency: 2, maxQueued: 10 })
    const results = ['a', 'b', 'c', 'd', 'e'].map((password) => bounded.hash(password))
    await tick()
    expect(inner.started).toEqual(['hash:a', 'hash:b'])
    expect(bounded.load()).toEqual({ active: 2, queued: 3 })
    inner.gates[1]?.open()
    await tick()
    expect(inner.started).toEqual(['hash:a', 'hash:b', 'hash:c'])
    inner.gates[0]?.open()
    await tick()
    expect(inner.started).toEqual(['hash:a', 'hash:b', 'hash:c', 'hash:d'])
    for (let index = 2; index < 5; index++) {
      inner.gates[index]?.open()
      await tick()
    }
    await expect(Promise.all(results)).resolves.toEqual([
      'hashed:a',
      'hashed:b',
      'hashed:c',
      'hashed:d',
      'hashed:e',
    ])
    expect(inner.peak()).toBe(2)
    expect(bounded.load()).toEqual({ active: 0, queued: 0 })
  })

  it('refuses beyond the queue with a typed 503-style error carrying Retry-After', async () => {
    const inner = gatedHasher()
    const bounded = boundedPasswordHasher(inner.hasher, {
      concurrency: 1,
      maxQueued: 1,
      retryAfterSeconds: 7,
    })
    const first = bounded.verify('hashed:x', 'x')
    const second = bounded.hash('y')
    const third = bounded.hash('hunter2-secret')
    await expect(third).rejects.toBeInstanceOf(PasswordHashingBusyError)
    const error = await third.catch((caught: unknown) => caught as PasswordHashingBusyError)
    expect(error).toMatchObject({
      code: 'local.hashing_busy',
      errorClass: 'unavailable',
      retryAfterSeconds: 7,
    })
    expect(JSON.stringify(error)).not.toContain('hunter2')
    expect(error).toBeInstanceOf(PasswordHashingBusyError)
    expect((error as PasswordHashingBusyError).toJSON()).toMatchObject({ retryAfterSeconds: 7 })
    await tick()
    expect(inner.started).toEqual(['verify:x'])
    inner.gates[0]?.open()
    await expect(first).resolves.toBe(true)
    await tick()
    inner.gates[1]?.open()
    await expect(second).resolves.toBe('hashed:y')
  })

  it('frees the slot when the inner hasher rejects or throws synchronously', async () => {
    const inner = gatedHasher()
    const bounded = boundedPasswordHasher(inner.hasher, { concurrency: 1, maxQueued: 0 })
    const failing = bounded.hash('a')
    await expect(bounded.hash('b')).rejects.toBeInstanceOf(PasswordHashingBusyError)
    await tick()
    inner.gates[0]?.fail(new Error('native failure'))
    await expect(failing).rejects.toThrow('native failure')
    expect(bounded.load()).toEqual({ active: 0, queued: 0 })

    const throwing = boundedPasswordHasher(
      {
        hash: () => {
          throw new Error('sync failure')
        },
        verify: async () => false,
        needsRehash: () => false,
      },
      { concurrency: 1, maxQueued: 0 },
    )
    await expect(throwing.hash('a')).rejects.toThrow('sync failure')
    await expect(throwing.verify('x', 'a')).resolves.toBe(false)
  })

  it('passes needsRehash straight through and validates its limits', () => {
    const bounded = boundedPasswordHasher(gatedHasher().hasher)
    expect(bounded.needsRehash('old:x')).toBe(true)
    expect(bounded.needsRehash('new:x')).toBe(false)
    expect(() => boundedPasswordHasher({} as PasswordHasher)).toThrow(ConfigurationError)
    expect(() => boundedPasswordHasher(gatedHasher().hasher, { maxQueue: 3 } as never)).toThrow(
      expect.objectContaining({ code: 'configuration.unknown_option' }),
    )
    for (const options of [
      { concurrency: '2' as unknown as number },
      { concurrency: 0 },
      { concurrency: 1.5 },
      { maxQueued: -1 },
      { retryAfterSeconds: 0 },
    ]) {
      expect(() => boundedPasswordHasher(gatedHasher().hasher, options)).toThrow(ConfigurationError)
    }
  })
})
