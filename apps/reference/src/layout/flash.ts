import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'

// What a page says after a form: every form posts, then redirects (303) to a page that shows the outcome
// (POST/redirect/GET: no POST in the address bar, nothing done twice on refresh). The outcome travels
// in a short-lived cookie, sealed with AES-256-GCM under the app's page-cookie key (the same on every
// instance, so the GET may land on another instance than the POST) and bound to the account, read once by
// the page it names. It may carry what is shown once (a new API key, recovery codes): a reload after that
// shows nothing again.

const KEY_BYTES = 32
const NONCE_BYTES = 12
const TAG_BYTES = 16

/** A cookie whose value is sealed JSON, bound to one account and to its own name. */
export class SealedCookie<T> {
  readonly #key: Buffer

  constructor(
    readonly name: string,
    readonly options: {
      /** The cookie's `Path` (the pages that read it). */
      readonly path: string
      readonly maxAgeSeconds: number
      readonly secure: boolean
      /** 32 bytes, the same on every instance. */
      readonly key: Uint8Array
    },
  ) {
    if (options.key.byteLength !== KEY_BYTES) throw new RangeError(`${name}: the cookie key must be 32 bytes`)
    this.#key = Buffer.from(options.key)
  }

  #cookie(value: string, maxAge: number): string {
    return `${this.name}=${value}; Path=${this.options.path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${this.options.secure ? '; Secure' : ''}`
  }

  /** Sets the cookie to `value`, for `accountId`. */
  set(response: Response, accountId: string, value: T): void {
    const nonce = randomBytes(NONCE_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce)
    cipher.setAAD(Buffer.from(this.name))
    const expires = Date.now() + this.options.maxAgeSeconds * 1000
    const plaintext = Buffer.from(JSON.stringify({ a: accountId, e: expires, v: value }))
    const sealed = Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
    response.append('Set-Cookie', this.#cookie(sealed.toString('base64url'), this.options.maxAgeSeconds))
  }

  /** Clears the cookie. */
  clear(response: Response): void {
    response.append('Set-Cookie', this.#cookie('', 0))
  }

  /** The value sealed for `accountId`, if the request carries one that is intact and unexpired. */
  read(request: Request, accountId: string): T | undefined {
    const raw = cookieValue(request.headers.cookie, this.name)
    if (raw === undefined || raw === '') return undefined
    try {
      const sealed = Buffer.from(raw, 'base64url')
      if (sealed.length <= NONCE_BYTES + TAG_BYTES) return undefined
      const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(0, NONCE_BYTES))
      decipher.setAAD(Buffer.from(this.name))
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
      const plaintext = Buffer.concat([
        decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ])
      const parsed = JSON.parse(plaintext.toString('utf8')) as { a?: unknown; e?: unknown; v?: T }
      if (parsed.a !== accountId || typeof parsed.e !== 'number' || parsed.e < Date.now()) return undefined
      return parsed.v
    } catch {
      // tampered, sealed by another process, or not ours: as if absent
      return undefined
    }
  }

  /** Reads the value and clears the cookie (shown once). */
  take(request: Request, response: Response, accountId: string): T | undefined {
    if (cookieValue(request.headers.cookie, this.name) === undefined) return undefined
    this.clear(response)
    return this.read(request, accountId)
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim()
  }
  return undefined
}

/** What a page shows after a redirect: a notice (what happened), or an error beside the field it names. */
export interface Flash {
  /** What happened, in words. */
  readonly notice?: string
  /** What went wrong, in words. */
  readonly error?: string
  /** The form field `error` concerns (the page shows the error beside it). */
  readonly field?: string
  /** Values shown once (an issued API key, recovery codes). */
  readonly reveal?: readonly string[]
  /** What `reveal` holds: only the page of that kind shows it. */
  readonly revealKind?: 'api-key' | 'recovery-codes'
  /** Words about what `reveal` is. */
  readonly revealTitle?: string
  /** An action the next page finishes elsewhere (at the identity provider), to say what came of it. */
  readonly pending?: 'link' | 'unlink'
}

/** The flash cookie of the pages, for a site at `publicOrigin`, sealed under the app's page-cookie key. */
export const pageFlash = (context: {
  readonly publicOrigin: string
  readonly pageCookieKey: Uint8Array
}): SealedCookie<Flash> =>
  new SealedCookie<Flash>('portcullis-flash', {
    path: '/',
    maxAgeSeconds: 600,
    secure: context.publicOrigin.startsWith('https:'),
    key: context.pageCookieKey,
  })
