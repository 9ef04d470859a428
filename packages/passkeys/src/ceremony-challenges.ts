import { timingSafeEqual } from 'node:crypto'
import type { PasskeyCeremony, PasskeyChallenge, PasskeyChallengeStore } from '@portcullis/core/passkeys'
import {
  invalidPasskeyInput,
  PasskeyCeremonyStart,
  PasskeyError,
  PasskeyErrorCodes,
  requirePasskeyAccountId,
} from '@portcullis/core/passkeys'
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server'
import { ChallengeKeys, TOKEN_43 } from './challenge-keys.js'
import type { PasskeyEvents } from './passkey-events.js'

/** What a registration or step-up challenge is bound to besides the browser. */
export interface CeremonyBinding {
  readonly accountId: string
  readonly sessionBinding: string
  readonly purpose: string | null
}

export function requireSessionBinding(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1024) {
    throw invalidPasskeyInput('sessionBinding must be a non-blank string')
  }
  return value
}

export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * Mints, stores and consumes ceremony challenges: challenge and browser binding leave only as values for
 * the browser; the store sees HMAC digests. Consuming looks the challenge up by both digests (another
 * browser's lookup never touches it) and then spends it whatever else is wrong.
 */
export class CeremonyChallenges {
  readonly #store: PasskeyChallengeStore
  readonly #keys: ChallengeKeys
  readonly #ttlSeconds: number
  readonly #now: () => Date
  readonly #random: (size: number) => Uint8Array
  readonly #events: PasskeyEvents

  constructor(options: {
    readonly store: PasskeyChallengeStore
    readonly pepper: Uint8Array
    readonly ttlSeconds: number
    readonly now: () => Date
    readonly random: (size: number) => Uint8Array
    readonly events: PasskeyEvents
  }) {
    this.#store = options.store
    this.#keys = new ChallengeKeys(options.pepper)
    this.#ttlSeconds = options.ttlSeconds
    this.#now = options.now
    this.#random = options.random
    this.#events = options.events
  }

  /** A fresh challenge: base64url of 32 random bytes. */
  token(): string {
    let bytes: Uint8Array
    try {
      bytes = this.#random(32)
    } catch (cause) {
      throw new PasskeyError(PasskeyErrorCodes.unavailable, 'randomness failed', { cause })
    }
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== 32) {
      throw new PasskeyError(PasskeyErrorCodes.unavailable, 'randomBytes returned the wrong size')
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  }

  async start<Options extends PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON>(
    options: Options,
    challenge: string,
    ceremony: PasskeyCeremony,
    browserBinding: string | undefined,
    bound: CeremonyBinding | null,
  ): Promise<PasskeyCeremonyStart<Options>> {
    const reused = typeof browserBinding === 'string' && TOKEN_43.test(browserBinding)
    const binding = reused ? (browserBinding as string) : this.token()
    const now = this.#now()
    const expiresAt = new Date(now.getTime() + this.#ttlSeconds * 1000)
    const record: PasskeyChallenge = {
      challengeDigest: this.#keys.digest('challenge', challenge),
      bindingDigest: this.#keys.digest('binding', binding),
      ceremony,
      accountId: bound === null ? null : requirePasskeyAccountId(bound.accountId),
      sessionDigest:
        bound === null ? null : this.#keys.digest('session', requireSessionBinding(bound.sessionBinding)),
      purpose: bound?.purpose ?? null,
      createdAt: now,
      expiresAt,
    }
    await this.#guard(() => this.#store.createChallenge(record))
    return new PasskeyCeremonyStart(options, binding, reused, expiresAt)
  }

  async consume(
    challenge: string,
    browserBinding: string | undefined,
    ceremony: PasskeyCeremony,
    bound: CeremonyBinding | null,
    clientAddress?: string,
  ): Promise<PasskeyChallenge> {
    const refuse = (): never => {
      this.#events.emit('passkey.failed', {
        reason: 'unknown_challenge',
        accountId: bound?.accountId,
        clientAddress,
      })
      throw new PasskeyError(
        PasskeyErrorCodes.challengeInvalid,
        'the passkey challenge is not valid: start again',
      )
    }
    if (typeof browserBinding !== 'string' || !TOKEN_43.test(browserBinding)) return refuse()
    const key = {
      challengeDigest: this.#keys.digest('challenge', challenge),
      bindingDigest: this.#keys.digest('binding', browserBinding),
    }
    const record = await this.#guard(() => this.#store.consumeChallenge(key, this.#now()))
    if (record === null || record.ceremony !== ceremony) return refuse()
    // From here the challenge is spent: a mismatch below cannot be retried.
    const expectedSession =
      bound === null ? null : this.#keys.digest('session', requireSessionBinding(bound.sessionBinding))
    const matches =
      record.accountId === (bound?.accountId ?? null) &&
      record.purpose === (bound?.purpose ?? null) &&
      (record.sessionDigest === null || expectedSession === null
        ? record.sessionDigest === expectedSession
        : sameText(record.sessionDigest, expectedSession))
    return matches ? record : refuse()
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (cause) {
      if (cause instanceof PasskeyError) throw cause
      throw new PasskeyError(PasskeyErrorCodes.unavailable, 'the challenge store failed', { cause })
    }
  }
}
