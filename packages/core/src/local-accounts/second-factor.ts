import type { LocalTransport } from './transport.js'

const inspect = Symbol.for('nodejs.util.inspect.custom')

/**
 * The answer to a correct password of an account that has a second factor: no session and no tokens
 * yet, only a one-use, short-lived pending token for the second step (`completeSecondFactor`).
 * `util.inspect`, `JSON.stringify` and `String()` hide the token.
 */
export class PendingSecondFactor {
  readonly transport = 'second-factor' as const
  /** What the second step accepts, e.g. `['totp', 'recovery_code']`. */
  readonly methods: readonly string[]
  readonly expiresAt: Date
  readonly #token: string

  constructor(token: string, methods: readonly string[], expiresAt: Date) {
    this.#token = token
    this.methods = Object.freeze([...methods])
    this.expiresAt = new Date(expiresAt.getTime())
    Object.freeze(this)
  }

  /** The pending token, for the one response that hands it to the client. */
  reveal(): string {
    return this.#token
  }

  toJSON(): {
    transport: 'second-factor'
    methods: readonly string[]
    expiresAt: string
    pendingToken: '[redacted]'
  } {
    return {
      transport: this.transport,
      methods: this.methods,
      expiresAt: this.expiresAt.toISOString(),
      pendingToken: '[redacted]',
    }
  }

  toString(): string {
    return `PendingSecondFactor(${this.methods.join(', ')})`
  }

  [inspect](): string {
    return `PendingSecondFactor { methods: ${JSON.stringify(this.methods)}, expiresAt: ${this.expiresAt.toISOString()}, pendingToken: [redacted] }`
  }
}

/** A password sign-in that got past its password, waiting for the second factor. */
export interface SecondFactorStart {
  readonly accountId: string
  readonly securityEpoch: number
  readonly transport: LocalTransport
  readonly clientAddress: string | undefined
}

/** Who sends the second step: for limits and events, and the transport of the route it came to. */
export interface SecondFactorContext {
  readonly clientAddress: string | undefined
  readonly transport?: LocalTransport | undefined
}

/** A completed second step: who signed in, over which transport, and how (`amr`, RFC 8176 values). */
export interface SecondFactorCompletion {
  readonly accountId: string
  readonly securityEpoch: number
  readonly transport: LocalTransport
  readonly amr: readonly string[]
}

/**
 * Port: the second factor of password sign-ins (`LocalAccounts({ secondFactor })`). The TOTP capability
 * implements it (`TotpSecondFactor`).
 */
export interface SecondFactorGate {
  /** The pending sign-in to answer when the account has a second factor; null when it has none. */
  begin(start: SecondFactorStart): Promise<PendingSecondFactor | null>
  /**
   * Checks the second step (`{ pendingToken, code }` or `{ pendingToken, recoveryCode }`) and spends the
   * pending token on success; throws (401, 429, 503) otherwise. A pending sign-in of another transport
   * than `context.transport` (when given) is refused before any code is checked.
   */
  complete(body: unknown, context: SecondFactorContext): Promise<SecondFactorCompletion>
}
