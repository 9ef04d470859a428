import { createHmac, timingSafeEqual } from 'node:crypto'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'

export interface DPoPNoncesOptions {
  /** At least 32 random bytes, the same on every instance (from the environment or a secret store). */
  readonly secret: Uint8Array
  /** How long one nonce is issued; a nonce is accepted for up to twice this. Default 300 s. */
  readonly rotationSeconds?: number
}

const CONFIG = 'dpop.invalid_config'

const OPTIONS: OptionsShape<DPoPNoncesOptions> = {
  secret: { required: true, kind: 'bytes', code: CONFIG },
  rotationSeconds: { kind: 'number', code: CONFIG },
}

/**
 * Server-provided DPoP nonces (RFC 9449 section 8) without storage: the nonce of a time window is the
 * HMAC-SHA256 of the window's number under a shared secret, so every instance issues and accepts the same
 * values. The current and the previous window's nonces are accepted; older ones are stale.
 */
export class DPoPNonces {
  readonly #secret: Buffer
  readonly #rotationMs: number

  constructor(options: DPoPNoncesOptions) {
    readOptions(options, 'DPoPNonces', OPTIONS)
    if (options.secret.byteLength < 32) {
      throw new ConfigurationError(CONFIG, 'secret must be at least 32 bytes', {
        option: 'DPoPNonces.secret',
      })
    }
    const rotation = options.rotationSeconds ?? 300
    if (!Number.isInteger(rotation) || rotation < 10 || rotation > 3600) {
      throw new ConfigurationError(CONFIG, 'rotationSeconds must be an integer between 10 and 3600', {
        option: 'DPoPNonces.rotationSeconds',
      })
    }
    this.#secret = Buffer.from(options.secret)
    this.#rotationMs = rotation * 1000
  }

  /** The nonce to hand out at `nowMs` (milliseconds since the epoch). */
  current(nowMs: number): string {
    return this.#nonceOf(Math.floor(nowMs / this.#rotationMs))
  }

  /** Whether `nonce` is the current or the previous window's nonce. */
  accepts(nonce: string, nowMs: number): boolean {
    const window = Math.floor(nowMs / this.#rotationMs)
    const presented = Buffer.from(nonce)
    return [window, window - 1].some((index) => {
      const expected = Buffer.from(this.#nonceOf(index))
      return expected.length === presented.length && timingSafeEqual(expected, presented)
    })
  }

  #nonceOf(window: number): string {
    return createHmac('sha256', this.#secret).update(`portcullis-dpop-nonce:${window}`).digest('base64url')
  }

  toString(): string {
    return 'DPoPNonces { secret: [hidden] }'
  }

  toJSON(): string {
    return this.toString()
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString()
  }
}
