import { STATUS_CODES } from 'node:http'

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
  /** Seconds; rendered as `Retry-After` (429 and 503). */
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

/** Titles RFC 9110 renamed (Node still uses the older reason phrase). */
const RFC_9110_TITLES: Readonly<Record<number, string>> = { 413: 'Content Too Large' }

/** Renders the problem body for `init`. */
export function problemBody(init: ProblemInit): ProblemBody {
  const base = {
    type: 'about:blank',
    title: RFC_9110_TITLES[init.status] ?? STATUS_CODES[init.status] ?? 'Error',
    status: init.status,
    code: init.code,
  }
  return init.detail === undefined ? base : { ...base, detail: init.detail }
}

/** A rendered problem: what an adapter writes (status, headers, body), whatever its framework. */
export interface ProblemResponse {
  readonly status: number
  /** `Content-Type`, `Cache-Control: no-store`, `Retry-After` when known, and the problem's own headers. */
  readonly headers: Readonly<Record<string, string>>
  /** The serialized `application/problem+json` body. */
  readonly body: string
}

/** The media type of every problem body. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

/**
 * Renders `init` as `application/problem+json`, with `Cache-Control: no-store` and `Retry-After` when
 * known (a non-negative finite number of seconds, rounded up).
 */
export function renderProblem(init: ProblemInit): ProblemResponse {
  const headers: Record<string, string> = { ...(init.headers ?? {}) }
  const retryAfter = init.retryAfterSeconds
  if (retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) {
    headers['Retry-After'] = String(Math.ceil(retryAfter))
  }
  headers['Cache-Control'] = 'no-store'
  headers['Content-Type'] = PROBLEM_CONTENT_TYPE
  return { status: init.status, headers, body: JSON.stringify(problemBody(init)) }
}
