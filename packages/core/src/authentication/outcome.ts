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
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

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
export const invalid = (reason: string): AuthenticationOutcome => ({ kind: 'invalid', reason })

export const unavailable = (reason: string, retryAfterSeconds?: number): AuthenticationOutcome =>
  retryAfterSeconds === undefined
    ? { kind: 'unavailable', reason }
    : { kind: 'unavailable', reason, retryAfterSeconds }
