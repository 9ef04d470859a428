import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { PasswordHashingBusyError } from '../errors.js'
import type { PasswordHasher } from './password.js'

/** Limits of `boundedPasswordHasher`. */
export interface BoundedPasswordHasherOptions {
  /** Hash or verify operations running at once. Default 2 (libuv's pool has 4 threads for all of Node). */
  readonly concurrency?: number
  /** Operations waiting (first in, first out) for a slot; beyond, `PasswordHashingBusyError`. Default 64. */
  readonly maxQueued?: number
  /** Carried by `PasswordHashingBusyError` for `Retry-After`. Default 1. */
  readonly retryAfterSeconds?: number
}

/** A `PasswordHasher` with a concurrency cap, and its current load. */
export interface BoundedPasswordHasher extends PasswordHasher {
  /** Operations running now and operations waiting for a slot. */
  load(): { readonly active: number; readonly queued: number }
}

const OPTIONS: OptionsShape<BoundedPasswordHasherOptions> = {
  concurrency: { kind: 'number', code: 'local.invalid_config' },
  maxQueued: { kind: 'number', code: 'local.invalid_config' },
  retryAfterSeconds: { kind: 'number', code: 'local.invalid_config' },
}

function integer(value: number | undefined, fallback: number, min: number, name: string): number {
  const result = value ?? fallback
  if (!Number.isSafeInteger(result) || result < min) {
    throw new ConfigurationError('local.invalid_config', `${name} must be an integer of at least ${min}`)
  }
  return result
}

/**
 * Caps password hashing so a burst of logins cannot starve the event loop's thread pool or exhaust memory:
 * at most `concurrency` `hash`/`verify` calls run at once, up to `maxQueued` more wait in arrival order,
 * and any call beyond that is refused at once with `PasswordHashingBusyError` (`local.hashing_busy`, class
 * `unavailable`: 503 with `Retry-After`). A failing inner call frees its slot. `needsRehash` is cheap and
 * passes straight through. Throws `ConfigurationError` for bad limits.
 */
export function boundedPasswordHasher(
  hasher: PasswordHasher,
  options: BoundedPasswordHasherOptions = {},
): BoundedPasswordHasher {
  readOptions(options, 'boundedPasswordHasher', OPTIONS)
  if (
    typeof hasher !== 'object' ||
    hasher === null ||
    typeof hasher.hash !== 'function' ||
    typeof hasher.verify !== 'function' ||
    typeof hasher.needsRehash !== 'function'
  ) {
    throw new ConfigurationError('local.invalid_config', 'boundedPasswordHasher needs a PasswordHasher')
  }
  const concurrency = integer(options.concurrency, 2, 1, 'concurrency')
  const maxQueued = integer(options.maxQueued, 64, 0, 'maxQueued')
  const retryAfterSeconds = integer(options.retryAfterSeconds, 1, 1, 'retryAfterSeconds')
  const waiting: (() => void)[] = []
  let active = 0

  const release = (): void => {
    const next = waiting.shift()
    if (next === undefined) active--
    else next() // the slot passes directly to the next waiter, so `active` is unchanged
  }

  const acquire = (): Promise<void> | undefined => {
    if (active < concurrency) {
      active++
      return undefined
    }
    if (waiting.length >= maxQueued) throw new PasswordHashingBusyError(retryAfterSeconds)
    return new Promise<void>((resolve) => waiting.push(resolve))
  }

  const run = async <T>(operation: () => Promise<T>): Promise<T> => {
    const slot = acquire()
    if (slot !== undefined) await slot
    try {
      return await operation()
    } finally {
      release()
    }
  }

  return {
    hash: (password) => run(() => hasher.hash(password)),
    verify: (encodedHash, password) => run(() => hasher.verify(encodedHash, password)),
    needsRehash: (encodedHash) => hasher.needsRehash(encodedHash),
    load: () => ({ active, queued: waiting.length }),
  }
}
