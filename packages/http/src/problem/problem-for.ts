import { type ErrorClass, isPortcullisError } from '@portcullis/core/errors'
import { bodyTooLargeProblem, isBodyTooLargeError, limitOf } from '../body/body-limit.js'
import { DEFAULT_RATE_LIMIT_RETRY_SECONDS, HttpProblem, type ProblemInit, problems } from './problem.js'

const STATUS_BY_CLASS: Readonly<Record<ErrorClass, number | undefined>> = {
  configuration: undefined,
  'invalid-input': 400,
  unauthenticated: 401,
  forbidden: 403,
  conflict: 409,
  'rate-limited': 429,
  unavailable: 503,
}

const DETAIL_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'The request is malformed',
  401: 'Authentication required',
  403: 'Permission denied',
  409: 'The request conflicts with the current state',
  429: 'Too many requests',
  503: 'Service unavailable',
}

function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

function withRetry(init: ProblemInit, seconds: number | undefined): ProblemInit {
  return seconds === undefined ? init : { ...init, retryAfterSeconds: seconds }
}

/**
 * Maps any thrown value to a problem. `HttpProblem` renders as given; a `PortcullisError` renders its
 * stable code with the status of its class and a generic detail (its message is never rendered);
 * a body parser's "too large" error (Express `json()`, `urlencoded()`, `raw()`, `text()`) is 413
 * `request.body_too_large`, its other client errors (`status` 4xx with `expose`) `request.invalid`;
 * anything else is a 500 with no detail of the cause.
 */
export function problemFor(error: unknown): ProblemInit {
  if (error instanceof HttpProblem) {
    return withRetry(
      {
        status: error.status,
        code: error.code,
        ...(error.detail === undefined ? {} : { detail: error.detail }),
        headers: error.headers,
      },
      error.retryAfterSeconds,
    )
  }
  if (isPortcullisError(error)) {
    const status = STATUS_BY_CLASS[error.errorClass]
    if (status === undefined) return problems.internalError
    const retry = retryAfterOf(error) ?? (status === 429 ? DEFAULT_RATE_LIMIT_RETRY_SECONDS : undefined)
    return withRetry({ status, code: error.code, detail: DETAIL_BY_STATUS[status] ?? 'Error' }, retry)
  }
  if (isBodyTooLargeError(error)) return bodyTooLargeProblem(limitOf(error))
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status
  const exposed = (error as { expose?: unknown } | null)?.expose === true
  if (typeof status === 'number' && status >= 400 && status < 500 && exposed) {
    return { ...problems.invalidRequest, status }
  }
  return problems.internalError
}
