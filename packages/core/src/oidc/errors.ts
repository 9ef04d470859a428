import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of the OIDC / OAuth provider domain. HTTP adapters map the error class: unauthenticated
 * 401, forbidden 403, invalid-input 400, conflict 409, unavailable 503. The `reason` of an error is for
 * logs and tests only; a response body carries the code, never the reason.
 */
export const OIDCErrorCodes = {
  /** The discovery document or an outbound request was refused or failed (network, status, size, time). */
  discoveryFailed: 'oidc.discovery.failed',
  /** An outbound request was refused by the address policy (private address, scheme, port, origin). */
  requestRefused: 'oidc.http.refused',
  /** The callback did not verify: state/iss/code/ID token/nonce/identity checks. Always 401. */
  callbackRejected: 'oidc.callback.rejected',
  /** The provider could not be reached or answered with a server error. 503. */
  providerUnavailable: 'oidc.provider.unavailable',
  /** Revalidation or reauthentication did not prove what it must (identity, freshness, ACR/AMR, epoch). */
  confirmationRefused: 'oidc.confirmation.refused',
  /** No registration of that name. */
  unknownProvider: 'oidc.provider.unknown',
  /** Reauthentication is not configured for this provider or purpose. */
  reauthenticationUnavailable: 'oidc.reauthentication.not_configured',
  /** The account has no link with this provider. */
  notLinked: 'oidc.account.not_linked',
  /** The step-up credential the operation needs was missing, wrong or already used. */
  stepUpRequired: 'oidc.step_up.required',
  /** The request itself is malformed (scopes outside the allow-list, nothing to upgrade, bad input). */
  invalidRequest: 'oidc.request.invalid',
  /** The provider granted less than a scope upgrade asked for. */
  scopesNotGranted: 'oidc.scopes.not_granted',
  /** A local dependency (the step-up store, the transaction store) failed. 503. */
  dependencyUnavailable: 'oidc.dependency.unavailable',
  /** A closed provider or discovery client was used. */
  closed: 'oidc.closed',
  /** A back-channel logout token did not verify (signature, claims, replay) or names no one. 400. */
  logoutTokenRejected: 'oidc.logout_token.rejected',
} as const

export type OIDCErrorCode = (typeof OIDCErrorCodes)[keyof typeof OIDCErrorCodes]

const CLASS_OF: Readonly<Record<OIDCErrorCode, ErrorClass>> = {
  'oidc.discovery.failed': 'unavailable',
  'oidc.http.refused': 'forbidden',
  'oidc.callback.rejected': 'unauthenticated',
  'oidc.provider.unavailable': 'unavailable',
  'oidc.confirmation.refused': 'forbidden',
  'oidc.provider.unknown': 'invalid-input',
  'oidc.reauthentication.not_configured': 'forbidden',
  'oidc.account.not_linked': 'forbidden',
  'oidc.step_up.required': 'unauthenticated',
  'oidc.request.invalid': 'invalid-input',
  'oidc.scopes.not_granted': 'invalid-input',
  'oidc.dependency.unavailable': 'unavailable',
  'oidc.closed': 'unavailable',
  'oidc.logout_token.rejected': 'invalid-input',
}

export interface OIDCErrorOptions extends PortcullisErrorOptions {
  /** A short stable token saying which check failed, for logs (`nonce-mismatch`, `auth-time-stale`). */
  readonly reason?: string
}

/**
 * Every deliberate failure of discovery, providers and the OAuth lifecycle. Messages are fixed strings:
 * they never contain codes, tokens, verifiers, nonces or claim values.
 */
export class OIDCError extends PortcullisError {
  declare readonly code: OIDCErrorCode
  /** Which check failed, for logs; never rendered to clients. */
  readonly reason: string

  constructor(code: OIDCErrorCode, message: string, options: OIDCErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
    this.reason = options.reason ?? code
  }
}

/**
 * The provider was unreachable or failed while the callback was being completed. `retryable` is true
 * when the authorization code provably never reached the provider, so the transaction was put back and
 * the same callback may be retried (see `OAuthLifecycleService.complete`).
 */
export class OIDCProviderUnavailableError extends OIDCError {
  readonly retryable: boolean

  constructor(retryable: boolean, options: OIDCErrorOptions = {}) {
    super(OIDCErrorCodes.providerUnavailable, 'the identity provider is unavailable', options)
    this.retryable = retryable
  }
}

export function callbackRejected(reason: string, cause?: unknown): OIDCError {
  return new OIDCError(OIDCErrorCodes.callbackRejected, 'the provider callback was rejected', {
    reason,
    ...(cause === undefined ? {} : { cause }),
  })
}

export function logoutTokenRejected(reason: string): OIDCError {
  return new OIDCError(OIDCErrorCodes.logoutTokenRejected, 'the logout token was rejected', { reason })
}

export function confirmationRefused(reason: string): OIDCError {
  return new OIDCError(OIDCErrorCodes.confirmationRefused, 'provider confirmation was refused', { reason })
}

export function discoveryFailed(reason: string, cause?: unknown): OIDCError {
  return new OIDCError(OIDCErrorCodes.discoveryFailed, 'OIDC discovery failed', {
    reason,
    ...(cause === undefined ? {} : { cause }),
  })
}

export function requestRefused(reason: string): OIDCError {
  return new OIDCError(OIDCErrorCodes.requestRefused, 'the outbound request was refused by policy', {
    reason,
  })
}

export function invalidRequest(reason: string): OIDCError {
  return new OIDCError(OIDCErrorCodes.invalidRequest, 'the OAuth request is invalid', { reason })
}
