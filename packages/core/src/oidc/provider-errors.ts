import * as client from 'openid-client'
import { callbackRejected, OIDCError, OIDCErrorCodes, OIDCProviderUnavailableError } from './errors.js'
import { OIDCRequestError } from './outbound-http.js'

const SAFE_TOKEN = /^[a-z0-9_.-]{1,64}$/i

function safe(value: unknown): string {
  return typeof value === 'string' && SAFE_TOKEN.test(value) ? value : 'unknown'
}

function find<T>(error: unknown, test: (value: unknown) => value is T): T | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (test(current)) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

const isRequestError = (value: unknown): value is OIDCRequestError => value instanceof OIDCRequestError
const isOIDCError = (value: unknown): value is OIDCError => value instanceof OIDCError

/** The status of a non-conforming token endpoint response, when openid-client kept it. */
function responseStatus(error: unknown): number | undefined {
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Response) return cause.status
  const status = (error as { status?: unknown }).status
  return typeof status === 'number' ? status : undefined
}

function claimOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { cause?: { claim?: unknown } } }).cause
  const claim = cause?.cause?.claim
  return typeof claim === 'string' ? claim : undefined
}

/**
 * Maps what openid-client (or the outbound client under it) threw while talking to the provider into
 * the typed errors of this module. Network failures and 5xx answers are `oidc.provider.unavailable`;
 * `retryable` only when the request provably never left this process. Everything the provider said
 * that does not verify is `oidc.callback.rejected`.
 */
export function mapProviderError(error: unknown, stage: string): OIDCError {
  const request = find(error, isRequestError)
  if (request !== undefined) {
    const transient = request.code === OIDCErrorCodes.providerUnavailable
    return new OIDCProviderUnavailableError(transient && !request.sent, {
      reason: `${stage}-${request.reason}`,
      cause: request,
    })
  }
  const typed = find(error, isOIDCError)
  if (typed !== undefined) return typed
  if (error instanceof client.ResponseBodyError) {
    if (error.status >= 500 || error.status === 429) {
      return new OIDCProviderUnavailableError(false, { reason: `${stage}-status`, cause: error })
    }
    return callbackRejected(`${stage}-error-${safe(error.error)}`)
  }
  if (error instanceof client.AuthorizationResponseError) {
    return callbackRejected(`authorization-error-${safe(error.error)}`)
  }
  if (error instanceof client.WWWAuthenticateChallengeError) {
    return error.status >= 500
      ? new OIDCProviderUnavailableError(false, { reason: `${stage}-status`, cause: error })
      : callbackRejected(`${stage}-challenge`)
  }
  if (error instanceof client.ClientError) {
    switch (error.code) {
      case 'OAUTH_RESPONSE_IS_NOT_CONFORM': {
        const status = responseStatus(error) ?? 0
        return status >= 500 || status === 429
          ? new OIDCProviderUnavailableError(false, { reason: `${stage}-status`, cause: error })
          : callbackRejected(`${stage}-status`)
      }
      case 'OAUTH_TIMEOUT':
      case 'OAUTH_ABORT':
        return new OIDCProviderUnavailableError(false, { reason: `${stage}-timeout`, cause: error })
      case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
      case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED': {
        const claim = claimOf(error)
        return callbackRejected(claim === 'nonce' ? 'nonce-mismatch' : `id-token-${safe(claim)}`)
      }
      default:
        return callbackRejected(`${stage}-${safe(error.code?.replace(/^OAUTH_/, '').toLowerCase())}`)
    }
  }
  return callbackRejected(`${stage}-unexpected`)
}
