import { hash } from 'node:crypto'
import { InvalidInputError } from '../../errors/portcullis-error.js'
import { isUnreservedSecret } from './transaction.js'

/** The only PKCE method Portcullis sends. */
export const PKCE_METHOD = 'S256'

/**
 * RFC 7636 S256 challenge: unpadded base64url of SHA-256 over the ASCII verifier. The verifier must be
 * 43-128 characters of `A-Z a-z 0-9 - . _ ~`; anything else is an `InvalidInputError`.
 */
export function pkceS256Challenge(verifier: string): string {
  if (!isUnreservedSecret(verifier)) {
    throw new InvalidInputError(
      'oauth.pkce.verifier_invalid',
      'PKCE verifier must be 43-128 unreserved characters',
    )
  }
  return hash('sha256', Buffer.from(verifier, 'ascii'), 'base64url')
}
