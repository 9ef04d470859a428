import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'
import type { PasswordHasher } from './password.js'

/** Options of `dummyHash`. */
export interface DummyHashOptions {
  /** Source of the random password. Default `node:crypto` `randomBytes`; must return exactly `size` bytes. */
  readonly randomBytes?: (size: number) => Uint8Array
}

/**
 * A precomputed hash of a random, immediately forgotten password, so a login for an unknown account runs
 * the same `verify` as a login for a known one and costs the same time (no account enumeration by timing).
 */
export interface DummyHash {
  /**
   * Verifies `password` against the dummy hash with the same hasher (and therefore the same concurrency
   * cap) as real logins, and always resolves `false`. Rejects only when the hasher does (for example
   * `PasswordHashingBusyError`), exactly as a real verification would.
   */
  verifyAgainstDummy(password: string): Promise<false>
  /** Computes the dummy hash now (call at startup), so the first unknown-account login does not pay twice. */
  warmup(): Promise<void>
}

const RANDOM_PASSWORD_BYTES = 32

const OPTIONS: OptionsShape<DummyHashOptions> = {
  randomBytes: { kind: 'function', code: 'local.invalid_config' },
}

/**
 * Creates the dummy hash lazily, once (concurrent first calls share one computation; a failed computation
 * is retried by the next call). Use the same `PasswordHasher` for real accounts and for the dummy.
 */
export function dummyHash(hasher: PasswordHasher, options: DummyHashOptions = {}): DummyHash {
  readOptions(options, 'dummyHash', OPTIONS)
  if (typeof hasher !== 'object' || hasher === null || typeof hasher.hash !== 'function') {
    throw new ConfigurationError('local.invalid_config', 'dummyHash needs a PasswordHasher')
  }
  const random = options.randomBytes ?? nodeRandomBytes
  let pending: Promise<string> | undefined

  const encoded = (): Promise<string> => {
    if (pending === undefined) {
      const attempt = (async () => {
        const bytes = random(RANDOM_PASSWORD_BYTES)
        if (!(bytes instanceof Uint8Array) || bytes.length !== RANDOM_PASSWORD_BYTES) {
          throw new LocalAccountError('local.randomness_failed', 'randomBytes returned the wrong size')
        }
        return hasher.hash(Buffer.from(bytes).toString('base64url'))
      })()
      pending = attempt
      attempt.catch(() => {
        if (pending === attempt) pending = undefined
      })
    }
    return pending
  }

  return {
    async verifyAgainstDummy(password) {
      await hasher.verify(await encoded(), password)
      return false
    },
    async warmup() {
      await encoded()
    },
  }
}
