import { STATUS_CODES } from 'node:http'
import type { Response } from 'express'

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

/** Writes `init` as `application/problem+json`, with `Cache-Control: no-store` and `Retry-After` when known. */
export function sendProblem(response: Response, init: ProblemInit): void {
  if (response.headersSent) {
    response.destroy()
    return
  }
  for (const [name, value] of Object.entries(init.headers ?? {})) response.setHeader(name, value)
  const retryAfter = init.retryAfterSeconds
  if (retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) {
    response.setHeader('Retry-After', String(Math.ceil(retryAfter)))
  }
  response.setHeader('Cache-Control', 'no-store')
  response
    .status(init.status)
    .type('application/problem+json')
    .send(JSON.stringify(problemBody(init)))
}
