const inspect = Symbol.for('nodejs.util.inspect.custom')

/**
 * A started ceremony: the options for `navigator.credentials.create()` / `.get()` (send them to the
 * browser) and the browser binding, a value for an HttpOnly cookie (`revealBrowserBinding()`), which the
 * finish step must come back with. `util.inspect` and `JSON.stringify` hide the binding.
 */
/**
 * What core reads of the options for `navigator.credentials.create()` / `.get()`: WebAuthn's
 * `PublicKeyCredentialCreationOptionsJSON` / `PublicKeyCredentialRequestOptionsJSON` carry more.
 */
export interface PasskeyOptionsJSON {
  /** The server's one-use challenge, base64url. */
  readonly challenge: string
}

export class PasskeyCeremonyStart<Options extends PasskeyOptionsJSON = PasskeyOptionsJSON> {
  readonly options: Options
  readonly expiresAt: Date
  /** True when the browser's existing binding cookie was kept (no new cookie needed). */
  readonly bindingReused: boolean
  readonly #binding: string

  constructor(options: Options, binding: string, bindingReused: boolean, expiresAt: Date) {
    this.options = options
    this.#binding = binding
    this.bindingReused = bindingReused
    this.expiresAt = new Date(expiresAt.getTime())
    Object.freeze(this)
  }

  revealBrowserBinding(): string {
    return this.#binding
  }

  toJSON(): { options: Options; expiresAt: string; browserBinding: '[redacted]' } {
    return { options: this.options, expiresAt: this.expiresAt.toISOString(), browserBinding: '[redacted]' }
  }

  [inspect](): string {
    return `PasskeyCeremonyStart { expiresAt: ${this.expiresAt.toISOString()}, browserBinding: [redacted] }`
  }
}
