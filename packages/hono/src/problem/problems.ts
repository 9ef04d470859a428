import { bodyTooLargeProblem } from '@portcullis/http/body'
import { type ProblemInit, problemFor, problems, renderProblem } from '@portcullis/http/problem'
import type { Context, ErrorHandler } from 'hono'

/** The shape of Hono's `HTTPException` (read structurally: `hono/http-exception` is not imported). */
interface HttpExceptionLike {
  readonly status: number
  /** The response it was given (`new HTTPException(401, { res })`), whose headers it answers with. */
  readonly res?: unknown
  getResponse(): Response
}

/** Headers of an exception's response that describe its own body, not the problem that replaces it. */
const BODY_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-range',
  'cache-control',
  'etag',
  'last-modified',
  'set-cookie',
])

/**
 * The headers of the response an `HTTPException` was given (the `WWW-Authenticate` challenge of a 401,
 * the `Retry-After` of a 429, the `Allow` of a 405), but those of its body: the problem has its own.
 */
function exceptionHeaders(error: HttpExceptionLike): Record<string, string> | undefined {
  if (!(error.res instanceof Response)) return undefined
  let headers: Record<string, string> | undefined
  for (const [name, value] of error.res.headers) {
    if (BODY_HEADERS.has(name)) continue
    headers ??= {}
    headers[name] = value
  }
  return headers
}

/** The `Set-Cookie` lines of the response an `HTTPException` was given. */
function exceptionCookies(error: unknown): readonly string[] {
  if (!isHttpException(error) || error.status < 400 || error.status >= 500) return []
  return error.res instanceof Response ? error.res.headers.getSetCookie() : []
}

function isHttpException(error: unknown): error is HttpExceptionLike {
  const candidate = error as Partial<HttpExceptionLike> | null
  return typeof candidate?.status === 'number' && typeof candidate.getResponse === 'function'
}

/**
 * The problem for an error a handler or Hono raised: Hono's own client errors (`HTTPException` with a
 * 4xx status, such as `hono/body-limit`'s 413) keep their status with a stable code and a generic detail,
 * and the headers of the response they were given (`HTTPException(401, { res })` keeps its
 * `WWW-Authenticate`); everything else is `problemFor` (typed errors by class, 500 otherwise; never a message or a stack).
 */
export function honoProblemFor(error: unknown): ProblemInit {
  if (isHttpException(error) && error.status >= 400 && error.status < 500) {
    const init =
      error.status === 413 ? bodyTooLargeProblem() : { ...problems.invalidRequest, status: error.status }
    const headers = exceptionHeaders(error)
    return headers === undefined ? init : { ...init, headers }
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
    for (const cookie of exceptionCookies(error)) c.header('set-cookie', cookie, { append: true })
    return sendProblem(c, honoProblemFor(error))
  }
}
