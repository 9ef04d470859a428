import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

const NONCE_BYTES = 32
const NONCE_FORMAT = /^[A-Za-z0-9_-]{43}$/

/**
 * The consent form's CSRF tokens: `nonce.mac`, the MAC an HMAC-SHA256 over the interaction uid, the
 * account and a nonce that also travels in a double-submit cookie. A token is good only for its
 * interaction, its account and the browser holding the cookie. The key never leaves the instance.
 */
export class ConsentCsrf {
  readonly #key: Buffer

  constructor(key: Uint8Array | undefined) {
    this.#key = key === undefined ? randomBytes(32) : Buffer.from(key)
  }

  /** A fresh nonce for the double-submit cookie. */
  nonce(): string {
    return randomBytes(NONCE_BYTES).toString('base64url')
  }

  /** The form's token for this interaction, account and cookie nonce. */
  token(uid: string, accountId: string, nonce: string): string {
    return `${nonce}.${this.#mac(uid, accountId, nonce)}`
  }

  /** Whether a presented token matches the cookie's nonce, the interaction and the account. */
  verify(presented: unknown, cookieNonce: string | undefined, uid: string, accountId: string): boolean {
    if (typeof presented !== 'string' || cookieNonce === undefined) return false
    const dot = presented.indexOf('.')
    if (dot < 0) return false
    const nonce = presented.slice(0, dot)
    if (!NONCE_FORMAT.test(nonce) || !equal(nonce, cookieNonce)) return false
    return equal(presented.slice(dot + 1), this.#mac(uid, accountId, nonce))
  }

  #mac(uid: string, accountId: string, nonce: string): string {
    return createHmac('sha256', this.#key)
      .update(JSON.stringify(['portcullis.interaction.consent', uid, accountId, nonce]))
      .digest('base64url')
  }

  toString(): string {
    return 'ConsentCsrf { key: [redacted] }'
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString()
  }
}

function equal(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  return left.length === right.length && timingSafeEqual(left, right)
}
