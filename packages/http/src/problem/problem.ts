import { STATUS_TITLES } from './status-titles.js'

/** An RFC 9457 problem details body with the stable Portcullis `code` extension member. */
export interface ProblemBody {
  readonly type: string
  readonly title: string
  readonly status: number
  /** Stable, machine-readable code (`authentication.required`, `authorization.denied`, ...). */
  readonly code: string
  readonly detail?: string
}

export interface ProblemInit {
  readonly status: number
  readonly code: string
  /** Client-safe explanation. Never name the grant or claim that failed, never include secrets. */
  readonly detail?: string
  /**
   * Seconds; rendered as `Retry-After`. A 429 or 503 always carries one: without a usable value here
   * (absent, negative, not finite) it gets the default of its status.
   */
  readonly retryAfterSeconds?: number
  /** Extra response headers (e.g. `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * An error a handler may throw to answer with a specific problem (`throw new HttpProblem({ status: 404,
 * code: 'project.not_found' })`). The detail is rendered as given, so keep it client-safe.
 */
export class HttpProblem extends Error {
  readonly status: number
  readonly code: string
  readonly detail: string | undefined
  readonly retryAfterSeconds: number | undefined
  readonly headers: Readonly<Record<string, string>>

  constructor(init: ProblemInit) {
    super(init.detail ?? init.code)
    this.name = 'HttpProblem'
    this.status =
      Number.isInteger(init.status) && init.status >= 400 && init.status <= 599 ? init.status : 500
    this.code = init.code
    this.detail = init.detail
    this.retryAfterSeconds = init.retryAfterSeconds
    this.headers = init.headers ?? {}
  }
}

/** The problems Portcullis itself answers with, with their generic, leak-free details. */
export const problems = {
  authenticationRequired: { status: 401, code: 'authentication.required', detail: 'Authentication required' },
  authenticationUnavailable: {
    status: 503,
    code: 'authentication.unavailable',
    detail: 'Authentication service unavailable',
  },
  permissionDenied: { status: 403, code: 'authorization.denied', detail: 'Permission denied' },
  stepUpRequired: { status: 401, code: 'step-up.required', detail: 'Fresh step-up authentication required' },
  insufficientUserAuthentication: {
    status: 401,
    code: 'authentication.insufficient_user_authentication',
    detail: 'Stronger or more recent authentication required',
  },
  stepUpUnavailable: {
    status: 503,
    code: 'step-up.unavailable',
    detail: 'Step-up authentication is unavailable',
  },
  invalidRequest: { status: 400, code: 'request.invalid', detail: 'The request is malformed' },
  bodyTooLarge: { status: 413, code: 'request.body_too_large', detail: 'The request body is too large' },
  internalError: { status: 500, code: 'internal.error', detail: 'Internal server error' },
  /** A route declares security options the adapter never applied: it is refused rather than served. */
  routeNotSecured: {
    status: 500,
    code: 'configuration.route_not_secured',
    detail: 'The route is refused: its security options were never applied',
  },
} as const satisfies Record<string, ProblemInit>

/** Renders the problem body for `init`. */
export function problemBody(init: ProblemInit): ProblemBody {
  const base = {
    type: 'about:blank',
    title: STATUS_TITLES[init.status] ?? 'Error',
    status: init.status,
    code: init.code,
  }
  return init.detail === undefined ? base : { ...base, detail: init.detail }
}

/** A rendered problem: what an adapter writes (status, headers, body), whatever its framework. */
export interface ProblemResponse {
  readonly status: number
  /** `Content-Type`, `Cache-Control: no-store`, `Retry-After` (always on 429 and 503), the problem's own headers. */
  readonly headers: Readonly<Record<string, string>>
  /** The serialized `application/problem+json` body. */
  readonly body: string
}

/** The media type of every problem body. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

/** `Retry-After` of a 503 whose cause did not say when to retry. */
export const DEFAULT_UNAVAILABLE_RETRY_SECONDS = 5

/** `Retry-After` of a 429 whose limiter did not say when to retry. */
export const DEFAULT_RATE_LIMIT_RETRY_SECONDS = 60

/**
 * The `Retry-After` value (delta-seconds) an answer of `status` carries: `seconds` rounded up when it is
 * a non-negative finite number; otherwise the default of a 503 or 429 (they always carry one), and
 * undefined for any other status. Every Portcullis 503 and 429 goes through here, problem or page.
 */
export function retryAfterFor(status: number, seconds?: number): string | undefined {
  if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) return String(Math.ceil(seconds))
  if (status === 503) return String(DEFAULT_UNAVAILABLE_RETRY_SECONDS)
  if (status === 429) return String(DEFAULT_RATE_LIMIT_RETRY_SECONDS)
  return undefined
}

function hasHeader(headers: Readonly<Record<string, string>>, name: string): boolean {
  const lower = name.toLowerCase()
  return Object.keys(headers).some((key) => key.toLowerCase() === lower)
}

/**
 * The headers of a problem answer: the problem's own, `Retry-After` (from `retryAfterSeconds`, else the
 * default of a 429 or 503, unless the problem's own headers already name one), `Cache-Control: no-store`
 * and the problem+json `Content-Type`.
 */
export function problemHeaders(init: ProblemInit): Record<string, string> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) }
  const usable =
    init.retryAfterSeconds !== undefined &&
    Number.isFinite(init.retryAfterSeconds) &&
    init.retryAfterSeconds >= 0
  if (usable || !hasHeader(headers, 'Retry-After')) {
    const retryAfter = retryAfterFor(init.status, init.retryAfterSeconds)
    if (retryAfter !== undefined) {
      for (const key of Object.keys(headers)) if (key.toLowerCase() === 'retry-after') delete headers[key]
      headers['Retry-After'] = retryAfter
    }
  }
  headers['Cache-Control'] = 'no-store'
  headers['Content-Type'] = PROBLEM_CONTENT_TYPE
  return headers
}

/**
 * Renders `init` as `application/problem+json`, with `Cache-Control: no-store` and `Retry-After` (see
 * `problemHeaders`: every 429 and 503 carries one).
 */
export function renderProblem(init: ProblemInit): ProblemResponse {
  return { status: init.status, headers: problemHeaders(init), body: JSON.stringify(problemBody(init)) }
}
