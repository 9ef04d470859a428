import { randomBytes } from 'node:crypto'
import { checkCsrf, csrfTokenForSession } from '@portcullis/core/local-accounts'

const NONCE_BYTES = 32
const NONCE_FORMAT = /^[A-Za-z0-9_-]{43}$/

/** A fresh nonce for the consent form's double-submit cookie (32 random bytes, base64url). */
export function consentNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64url')
}

/**
 * The binding the consent form's token derives from: the cookie's nonce, the interaction and the account,
 * framed (JSON), so a token is good for this interaction, this account and the browser holding the cookie.
 */
const binding = (nonce: string, uid: string, accountId: string) =>
  JSON.stringify(['portcullis.interaction.consent', nonce, uid, accountId])

/** The consent form's token: core's synchronizer token of the binding (nothing is stored, no key to share). */
export function consentToken(nonce: string, uid: string, accountId: string): string {
  return csrfTokenForSession(binding(nonce, uid, accountId))
}

export interface ConsentPost {
  readonly method: string
  readonly secFetchSite: string | undefined
  readonly origin: string | undefined
  /** The authorization server's own origin (the issuer's). */
  readonly targetOrigin: string
  /** The form's `csrf` field. */
  readonly presented: string | undefined
  /** The double-submit cookie's nonce. */
  readonly cookieNonce: string | undefined
  readonly uid: string
  readonly accountId: string
}

/**
 * Whether a consent post may be decided: core's CSRF rule (`checkCsrf`: Fetch Metadata, then `Origin`)
 * for the browser's headers, and, whatever the headers say, the form's token of this interaction, account
 * and cookie (compared by `checkCsrf` too). A consent issues tokens to a client: the form must be the one
 * this browser was shown.
 */
export function consentPostAllowed(post: ConsentPost): boolean {
  const { method, targetOrigin, cookieNonce } = post
  if (cookieNonce === undefined || !NONCE_FORMAT.test(cookieNonce)) return false
  const token = {
    presentedToken: post.presented,
    expectedToken: consentToken(cookieNonce, post.uid, post.accountId),
  }
  // The browser's headers, the token standing in only when a request carries neither header ...
  const browser = checkCsrf({
    method,
    targetOrigin,
    secFetchSite: post.secFetchSite,
    origin: post.origin,
    ...token,
  })
  // ... and the token, always.
  return browser.ok && checkCsrf({ method, targetOrigin, ...token }).ok
}
