import { type ProblemInit, problemFor } from '@portcullis/http/problem'
import type { ErrorRequestHandler, Request } from 'express'
import { sendProblem } from './send-problem.js'

/** A path whose percent-encoding does not decode: 400, the path never echoed. */
const MALFORMED_URL: ProblemInit = {
  status: 400,
  code: 'request.malformed_url',
  detail: 'The request URL is malformed',
}

/**
 * Whether `error` is the router's own refusal of a path parameter that does not percent-decode: a
 * `URIError` it gave `status` 400 (its message quotes the raw parameter, so it is never shown). A
 * handler's own `URIError` has no such status and stays a 500.
 */
function isUndecodablePath(error: unknown): boolean {
  return error instanceof URIError && (error as URIError & { status?: unknown }).status === 400
}

/** The problem for an error that reached the error middleware. */
export function expressProblemFor(error: unknown): ProblemInit {
  return isUndecodablePath(error) ? MALFORMED_URL : problemFor(error)
}

/**
 * Express error middleware rendering problem+json. `onError` sees every error (for logging). A path
 * parameter that does not percent-decode (the router's `URIError`) is 400 `request.malformed_url`.
 */
export function problemErrorHandler(
  onError?: (error: unknown, request: Request) => void,
): ErrorRequestHandler {
  return (error, request, response, _next) => {
    if (onError !== undefined) {
      try {
        onError(error, request)
      } catch {
        // A failing logger must not turn an error response into a crash.
      }
    }
    sendProblem(response, expressProblemFor(error))
  }
}
