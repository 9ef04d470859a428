import type { AuthenticationEvidence, Principal } from './principal.js'

/**
 * The result of one mechanism on one request:
 * - `none`: no credential for this mechanism was presented;
 * - `authenticated`: verified, with the principal and evidence;
 * - `invalid`: a credential was presented and rejected (never downgraded to `none`);
 * - `unavailable`: a dependency needed to decide is down (JWKS, store); beats `invalid` (503 over 401).
 */
export type AuthenticationOutcome =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'authenticated'
      readonly principal: Principal
      readonly evidence: AuthenticationEvidence
    }
  | { readonly kind: 'invalid'; readonly reason: string; readonly challenge?: AuthenticationChallenge }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

/**
 * What an `invalid` outcome asks the client to do, for the `WWW-Authenticate` answer: an RFC 9449 DPoP
 * challenge (`error` is `invalid_token`, `invalid_dpop_proof` or `use_dpop_nonce`, with the nonce to use).
 */
export interface AuthenticationChallenge {
  readonly scheme: 'DPoP'
  readonly error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce'
  /** Accepted proof algorithms (`algs`). */
  readonly algorithms: readonly string[]
  /** The server nonce the next proof must carry (sent as `DPoP-Nonce`). */
  readonly nonce?: string
}

const NONE: AuthenticationOutcome = Object.freeze({ kind: 'none' })

export const none = (): AuthenticationOutcome => NONE

export const authenticated = (
  principal: Principal,
  evidence: AuthenticationEvidence,
): AuthenticationOutcome => ({
  kind: 'authenticated',
  principal,
  evidence,
})

/** `reason` is for logs and metrics only; it is never rendered to clients. */
export const invalid = (reason: string, challenge?: AuthenticationChallenge): AuthenticationOutcome =>
  challenge === undefined ? { kind: 'invalid', reason } : { kind: 'invalid', reason, challenge }

export const unavailable = (reason: string, retryAfterSeconds?: number): AuthenticationOutcome =>
  retryAfterSeconds === undefined
    ? { kind: 'unavailable', reason }
    : { kind: 'unavailable', reason, retryAfterSeconds }
