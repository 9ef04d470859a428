import { type Algorithm, hash, type Options, parseOptions, type Version, verify } from '@node-rs/argon2'
import { ConfigurationError, type OptionsShape, readOptions } from '@portcullis/core/errors'
import { LocalAccountError, type PasswordHasher } from '@portcullis/core/local-accounts'

/** Parameters of `argon2idPasswordHasher`. The defaults are OWASP's first-choice argon2id setting. */
export interface Argon2idPasswordHasherOptions {
  /** Memory per hash in KiB (`m`). Default 19456 (19 MiB). */
  readonly memoryCostKiB?: number
  /** Passes over memory (`t`). Default 2. */
  readonly timeCost?: number
  /** Lanes (`p`). Default 1. */
  readonly parallelism?: number
  /** Hash output length in bytes. Default 32; at least 16. */
  readonly outputLength?: number
  /**
   * Refuses to verify stored hashes asking for more memory than this (KiB), so a planted or corrupt hash
   * cannot make one login allocate gigabytes. Default: four times `memoryCostKiB`, at least 256 MiB.
   */
  readonly maxVerifyMemoryKiB?: number
  /**
   * Accepts parameters below the OWASP minimums. For fast tests only; never in production.
   * Default false.
   */
  readonly allowWeakParametersForTests?: boolean
}

/** The settings a hasher runs with, after defaults (see `argon2idPasswordHasher`). */
export interface Argon2idParameters {
  readonly memoryCostKiB: number
  readonly timeCost: number
  readonly parallelism: number
  readonly outputLength: number
}

/** OWASP Password Storage Cheat Sheet: the defaults of `argon2idPasswordHasher`. */
export const OWASP_ARGON2ID_PARAMETERS: Argon2idParameters = Object.freeze({
  memoryCostKiB: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLength: 32,
})

/**
 * OWASP's equivalent argon2id settings (memory KiB, passes), all with one lane. Parameters are strong
 * enough when they reach at least one row in both memory and passes.
 */
const OWASP_MINIMUMS: readonly (readonly [memoryKiB: number, passes: number])[] = [
  [47_104, 1],
  [19_456, 2],
  [12_288, 3],
  [9_216, 4],
  [7_168, 5],
]

const ARGON2ID = 2 satisfies Algorithm
const VERSION_0X13 = 1 satisfies Version
const PREFIX = '$argon2id$v=19$'
const MAX_ENCODED_LENGTH = 512
const MAX_PASSWORD_BYTES = 4096
const MAX_MEMORY_KIB = 4 * 1024 * 1024
const MAX_TIME_COST = 64
const MAX_PARALLELISM = 16

const OPTIONS: OptionsShape<Argon2idPasswordHasherOptions> = {
  memoryCostKiB: { kind: 'number', code: 'argon2.invalid_parameters' },
  timeCost: { kind: 'number', code: 'argon2.invalid_parameters' },
  parallelism: { kind: 'number', code: 'argon2.invalid_parameters' },
  outputLength: { kind: 'number', code: 'argon2.invalid_parameters' },
  maxVerifyMemoryKiB: { kind: 'number', code: 'argon2.invalid_parameters' },
  allowWeakParametersForTests: { kind: 'boolean', code: 'argon2.invalid_parameters' },
}

function integer(value: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigurationError(
      'argon2.invalid_parameters',
      `${name} must be an integer from ${min} to ${max}`,
      {
        option: `argon2idPasswordHasher.${name}`,
      },
    )
  }
  return value
}

/** Applies defaults and checks the parameters; throws `ConfigurationError` (`argon2.*`). */
function parameters(
  options: Argon2idPasswordHasherOptions,
): Argon2idParameters & { maxVerifyMemoryKiB: number } {
  readOptions(options, 'argon2idPasswordHasher', OPTIONS)
  const defaults = OWASP_ARGON2ID_PARAMETERS
  const parallelism = integer(options.parallelism ?? defaults.parallelism, 1, MAX_PARALLELISM, 'parallelism')
  const memoryCostKiB = integer(
    options.memoryCostKiB ?? defaults.memoryCostKiB,
    8 * parallelism,
    MAX_MEMORY_KIB,
    'memoryCostKiB',
  )
  const timeCost = integer(options.timeCost ?? defaults.timeCost, 1, MAX_TIME_COST, 'timeCost')
  const outputLength = integer(options.outputLength ?? defaults.outputLength, 16, 64, 'outputLength')
  const strong = OWASP_MINIMUMS.some(([memory, passes]) => memoryCostKiB >= memory && timeCost >= passes)
  if (!strong && options.allowWeakParametersForTests !== true) {
    throw new ConfigurationError(
      'argon2.weak_parameters',
      'argon2id parameters are below the OWASP minimums (for example m=19456 KiB with t=2); ' +
        'allowWeakParametersForTests is for tests only',
      { option: 'argon2idPasswordHasher' },
    )
  }
  const maxVerifyMemoryKiB = integer(
    options.maxVerifyMemoryKiB ?? Math.max(4 * memoryCostKiB, 262_144),
    memoryCostKiB,
    MAX_MEMORY_KIB,
    'maxVerifyMemoryKiB',
  )
  return { memoryCostKiB, timeCost, parallelism, outputLength, maxVerifyMemoryKiB }
}

/** An argon2id `PasswordHasher` that also reports its parameters. */
export interface Argon2idPasswordHasher extends PasswordHasher {
  /** The parameters new hashes are made with. */
  readonly parameters: Argon2idParameters
}

/**
 * argon2id password hashing with `@node-rs/argon2` (native, off the event loop), producing PHC strings
 * (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) with a fresh 16-byte random salt each time.
 *
 * - Defaults are OWASP's (m = 19456 KiB, t = 2, p = 1); weaker settings are a `ConfigurationError`
 *   (`argon2.weak_parameters`) unless `allowWeakParametersForTests: true`.
 * - `verify` answers `false`, never throws, for a mismatch and for any hash it will not check: malformed,
 *   another algorithm (bcrypt, argon2i, argon2d, older argon2 versions), oversized, or asking for more memory
 *   than `maxVerifyMemoryKiB` or more than 64 passes. A non-string password is `false` as well.
 * - `needsRehash` is true when the hash's algorithm, version, m, t, p, output or salt length differ from
 *   the configured ones (or it cannot be parsed): rehash after the next successful login.
 * - `hash` refuses a non-string or a password over 4096 UTF-8 bytes (`local.invalid_password`); validate
 *   passwords with `validatePassword` from `@portcullis/core/local-accounts` first.
 *
 * Wrap it in `boundedPasswordHasher` to cap concurrent hashing.
 */
export function argon2idPasswordHasher(options: Argon2idPasswordHasherOptions = {}): Argon2idPasswordHasher {
  const config = parameters(options)
  const hashOptions: Options = {
    algorithm: ARGON2ID,
    version: VERSION_0X13,
    memoryCost: config.memoryCostKiB,
    timeCost: config.timeCost,
    parallelism: config.parallelism,
    outputLen: config.outputLength,
  }

  const acceptable = (encodedHash: unknown): encodedHash is string => {
    if (typeof encodedHash !== 'string' || encodedHash.length > MAX_ENCODED_LENGTH) return false
    if (!encodedHash.startsWith(PREFIX)) return false
    try {
      const parsed = parseOptions(encodedHash)
      return (
        parsed.memoryCost <= config.maxVerifyMemoryKiB &&
        parsed.timeCost <= MAX_TIME_COST &&
        parsed.parallelism <= MAX_PARALLELISM
      )
    } catch {
      return false
    }
  }

  return {
    parameters: Object.freeze({
      memoryCostKiB: config.memoryCostKiB,
      timeCost: config.timeCost,
      parallelism: config.parallelism,
      outputLength: config.outputLength,
    }),

    async hash(password) {
      if (typeof password !== 'string' || Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
        throw new LocalAccountError(
          'local.invalid_password',
          'password must be a string of at most 4096 bytes',
        )
      }
      return hash(password, hashOptions)
    },

    async verify(encodedHash, password) {
      if (typeof password !== 'string' || Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES)
        return false
      if (!acceptable(encodedHash)) return false
      try {
        return await verify(encodedHash, password)
      } catch {
        return false
      }
    },

    needsRehash(encodedHash) {
      if (typeof encodedHash !== 'string' || !encodedHash.startsWith(PREFIX)) return true
      try {
        const parsed = parseOptions(encodedHash)
        return (
          parsed.algorithm !== ARGON2ID ||
          parsed.version !== VERSION_0X13 ||
          parsed.memoryCost !== config.memoryCostKiB ||
          parsed.timeCost !== config.timeCost ||
          parsed.parallelism !== config.parallelism ||
          parsed.outputLen !== config.outputLength ||
          parsed.saltLen < 16
        )
      } catch {
        return true
      }
    },
  }
}
