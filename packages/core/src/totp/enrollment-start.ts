const inspect = Symbol.for('nodejs.util.inspect.custom')

/**
 * What a user's authenticator app needs to enroll, shown once: the `otpauth://totp/...` URI (render it
 * as a QR code) and the base32 secret (to type). `util.inspect`, `JSON.stringify` and `String()` hide both.
 */
export class TotpEnrollmentStart {
  readonly #secret: string
  readonly #uri: string

  constructor(base32Secret: string, uri: string) {
    this.#secret = base32Secret
    this.#uri = uri
    Object.freeze(this)
  }

  /** The secret in base32, for typing into an app that cannot scan. */
  revealSecret(): string {
    return this.#secret
  }

  /** The `otpauth://totp/<issuer>:<label>?secret=...` URI; it contains the secret. */
  revealUri(): string {
    return this.#uri
  }

  toJSON(): { secret: '[redacted]'; uri: '[redacted]' } {
    return { secret: '[redacted]', uri: '[redacted]' }
  }

  toString(): string {
    return 'TotpEnrollmentStart([redacted])'
  }

  [inspect](): string {
    return 'TotpEnrollmentStart { secret: [redacted], uri: [redacted] }'
  }
}
