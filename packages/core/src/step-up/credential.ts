/**
 * A one-use step-up credential: an opaque token shown once (call `reveal()` to hand it to the
 * client), the purpose it was issued for and when it expires. Stores keep only its SHA-256 digest.
 * `util.inspect`, `JSON.stringify` and `toString` never show the token.
 */
export class StepUpCredential {
  readonly purpose: string
  readonly expiresAt: Date
  readonly #token: string

  constructor(token: string, purpose: string, expiresAt: Date) {
    this.#token = token
    this.purpose = purpose
    this.expiresAt = new Date(expiresAt.getTime())
    Object.freeze(this)
  }

  /** The token, for the one response that delivers it to the client. */
  reveal(): string {
    return this.#token
  }

  toJSON(): { purpose: string; expiresAt: string; token: '[redacted]' } {
    return { purpose: this.purpose, expiresAt: this.expiresAt.toISOString(), token: '[redacted]' }
  }

  toString(): string {
    return `StepUpCredential(${this.purpose}; expires ${this.expiresAt.toISOString()})`
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `StepUpCredential { purpose: ${JSON.stringify(this.purpose)}, expiresAt: ${this.expiresAt.toISOString()}, token: [redacted] }`
  }
}
