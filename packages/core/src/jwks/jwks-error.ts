import { PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * A key set could not be obtained or was refused: fetch failure, HTTP status, oversized or malformed
 * document, closed provider. Always of class `unavailable`; messages name the source's issuer at most.
 *
 * Codes: `jwks.fetch_failed`, `jwks.http_status`, `jwks.redirect_refused`, `jwks.document_too_large`,
 * `jwks.document_invalid`, `jwks.not_modified_without_keys`, `jwks.closed`, `jwks.warmup_failed`.
 */
export class JWKSError extends PortcullisError {
  constructor(code: string, message: string, options: PortcullisErrorOptions = {}) {
    super(code, 'unavailable', message, options)
  }
}
