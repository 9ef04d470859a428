import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

const LABELS = {
  challenge: 'portcullis.passkey.challenge.v1\u0000',
  binding: 'portcullis.passkey.browser-binding.v1\u0000',
  session: 'portcullis.passkey.session-binding.v1\u0000',
} as const

/** A challenge or binding as minted: base64url of 32 random bytes. */
export const TOKEN_43 = /^[A-Za-z0-9_-]{43}$/

/** HMAC-SHA256 digests of challenges, browser bindings and session bindings under the service pepper. */
export class ChallengeKeys {
  readonly #pepper: KeyObject

  constructor(pepper: Uint8Array) {
    this.#pepper = createSecretKey(Uint8Array.prototype.slice.call(pepper))
  }

  digest(label: keyof typeof LABELS, value: string): string {
    return createHmac('sha256', this.#pepper).update(LABELS[label]).update(value, 'utf8').digest('base64url')
  }
}
