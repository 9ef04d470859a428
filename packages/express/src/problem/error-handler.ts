import { problemFor } from '@portcullis/http/problem'
import type { ErrorRequestHandler, Request } from 'express'
import { sendProblem } from './send-problem.js'

/** Express error middleware rendering problem+json. `onError` sees every error (for logging). */
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
    sendProblem(response, problemFor(error))
  }
}
