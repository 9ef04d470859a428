import { bodyTooLargeProblem } from '@portcullis/http/body'
import { type ProblemInit, problemFor, problems, renderProblem } from '@portcullis/http/problem'
import type { Context, ErrorHandler } from 'hono'

/** The shape of Hono's `HTTPException` (read structurally: `hono/http-exception` is not imported). */
interface HttpExceptionLike {
  readonly status: number
  getResponse(): Response
}

function isHttpException(error: unknown): error is HttpExceptionLike {
  const candidate = error as Partial<HttpExceptionLike> | null
  return typeof candidate?.status === 'number' && typeof candidate.getResponse === 'function'
}

/**
 * The problem for an error a handler or Hono raised: Hono's own client errors (`HTTPException` with a
 * 4xx status, such as `hono/body-limit`'s 413) keep their status with a stable code and a generic detail;
 * everything else is `problemFor` (typed errors by class, 500 otherwise; never a message or a stack).
 */
export function honoProblemFor(error: unknown): ProblemInit {
  if (isHttpException(error) && error.status >= 400 && error.status < 500) {
    if (error.status === 413) return bodyTooLargeProblem()
    return { ...problems.invalidRequest, status: error.status }
  }
  return problemFor(error)
}

/** Writes `init` as `application/problem+json` through the context (headers set earlier are kept). */
export function sendProblem(c: Context, init: ProblemInit): Response {
  const rendered = renderProblem(init)
  for (const [name, value] of Object.entries(rendered.headers)) c.header(name, value)
  return c.body(rendered.body, rendered.status as 400)
}

/** Calls an error observer; a failing observer never changes the answer. */
export function observe<C>(
  onError: ((error: unknown, context: C) => void) | undefined,
  error: unknown,
  context: C,
): void {
  if (onError === undefined) return
  try {
    onError(error, context)
  } catch {
    // A failing logger must not turn an error response into a crash.
  }
}

/** `app.onError` rendering problem+json; `onError` sees every error first (for logging). */
export function problemErrorHandler(
  onError: ((error: unknown, context: Context) => void) | undefined,
): ErrorHandler {
  return (error, c) => {
    observe(onError, error, c)
    return sendProblem(c, honoProblemFor(error))
  }
}
