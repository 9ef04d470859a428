import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { LocalTransport } from '../local-accounts/local-accounts-options.js'
import { readSecondFactor } from '../local-accounts/request-bodies.js'
import {
  PendingSecondFactor,
  type SecondFactorCompletion,
  type SecondFactorContext,
  type SecondFactorGate,
  type SecondFactorStart,
} from '../local-accounts/second-factor.js'
import { digestOf, TOKEN_FORMAT } from '../step-up/input.js'
import type { StepUpRecord, StepUpStore } from '../step-up/store.js'
import { TotpError, TotpErrorCodes } from './errors.js'
import type { TotpFactor } from './factor.js'

export interface TotpSecondFactorOptions {
  readonly totp: TotpFactor
  /**
   * Where pending sign-ins wait, by token digest: any `StepUpStore` (its atomic one-use `take` is what
   * a pending token needs). Records use the purposes `portcullis.second-factor.session` / `.tokens` and a
   * session binding nobody knows, so a pending token can never pass as a step-up credential.
   */
  readonly pending: StepUpStore
  /** Lifetime of a pending sign-in, 30 to 600 seconds; default 300. */
  readonly ttlSeconds?: number
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly clock?: () => number
  readonly randomBytes?: (size: number) => Uint8Array
}

const OPTIONS: OptionsShape<TotpSecondFactorOptions> = {
  totp: { required: true, kind: 'object', code: 'totp.invalid_config' },
  pending: { required: true, kind: 'object', code: 'totp.invalid_config' },
  ttlSeconds: { kind: 'number', code: 'totp.invalid_config' },
  clock: { kind: 'function', code: 'totp.invalid_config' },
  randomBytes: { kind: 'function', code: 'totp.invalid_config' },
}

const PURPOSE = 'portcullis.second-factor.'
const METHODS = Object.freeze(['totp', 'recovery_code'])

function pendingInvalid(): TotpError {
  return new TotpError(TotpErrorCodes.pendingInvalid, 'the sign-in is not pending: sign in again')
}

/**
 * TOTP as the second factor of password sign-ins (`new LocalAccounts({ secondFactor })`). A correct
 * password of an account with TOTP enabled gets a pending token (32 random bytes, stored as a digest,
 * five minutes by default). The second step takes it: a right code (or recovery code) spends it and
 * signs in; a wrong one puts it back for another try until it expires, under the TOTP attempt limit.
 */
export class TotpSecondFactor implements SecondFactorGate {
  readonly ttlSeconds: number
  readonly #totp: TotpFactor
  readonly #pending: StepUpStore
  readonly #clock: () => number
  readonly #random: (size: number) => Uint8Array

  constructor(options: TotpSecondFactorOptions) {
    readOptions(options, 'TotpSecondFactor', OPTIONS)
    const ttl = options.ttlSeconds ?? 300
    if (!Number.isSafeInteger(ttl) || ttl < 30 || ttl > 600) {
      throw new ConfigurationError('totp.invalid_config', 'ttlSeconds must be an integer from 30 to 600')
    }
    this.ttlSeconds = ttl
    this.#totp = options.totp
    this.#pending = options.pending
    this.#clock = options.clock ?? Date.now
    this.#random = options.randomBytes ?? nodeRandomBytes
  }

  async begin(start: SecondFactorStart): Promise<PendingSecondFactor | null> {
    if (!(await this.#totp.isEnabled(start.accountId))) return null
    const token = this.#token()
    const now = new Date(this.#clock())
    const record: StepUpRecord = {
      digest: digestOf(token),
      accountId: start.accountId,
      purpose: `${PURPOSE}${start.transport}`,
      securityEpoch: start.securityEpoch,
      // A binding nobody holds: this record can never be consumed as a step-up credential.
      sessionDigest: digestOf(this.#token()),
      issuedAt: now,
      authenticatedAt: now,
      expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000),
    }
    await this.#store(() => this.#pending.save(record))
    return new PendingSecondFactor(token, METHODS, record.expiresAt)
  }

  async complete(
    body: unknown,
    { clientAddress, transport: expected }: SecondFactorContext,
  ): Promise<SecondFactorCompletion> {
    const fields = readSecondFactor(body)
    if (!TOKEN_FORMAT.test(fields.pendingToken)) throw pendingInvalid()
    const record = await this.#store(() => this.#pending.take(digestOf(fields.pendingToken)))
    const transport = record?.purpose.startsWith(PURPOSE) ? record.purpose.slice(PURPOSE.length) : undefined
    if (
      record === null ||
      (transport !== 'session' && transport !== 'tokens') ||
      record.expiresAt.getTime() <= this.#clock() ||
      (expected !== undefined && transport !== expected)
    ) {
      throw pendingInvalid()
    }
    const context = { accountId: record.accountId, clientAddress }
    try {
      if (fields.code !== undefined) await this.#totp.verify({ ...context, code: fields.code })
      else await this.#totp.redeemRecoveryCode({ ...context, code: fields.recoveryCode })
    } catch (error) {
      // A typo must not cost the password step: the token goes back until it expires.
      await this.#pending.save(record).catch(() => undefined)
      throw error
    }
    return {
      accountId: record.accountId,
      securityEpoch: record.securityEpoch,
      transport: transport as LocalTransport,
      amr: ['pwd', 'otp'],
    }
  }

  #token(): string {
    const bytes = this.#random(32)
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== 32) {
      throw new TotpError(TotpErrorCodes.unavailable, 'randomBytes returned the wrong size')
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  }

  async #store<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (cause) {
      throw new TotpError(TotpErrorCodes.unavailable, 'the pending sign-in store failed', { cause })
    }
  }
}
