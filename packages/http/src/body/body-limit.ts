import type { ProblemInit } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'

/** The status of a body over its limit (RFC 9110 §15.5.14 Content Too Large): one constant everywhere. */
export const BODY_TOO_LARGE_STATUS = 413

/** The stable code of a body over its limit. */
export const BODY_TOO_LARGE_CODE = 'request.body_too_large'

const BODY_TOO_LARGE: ProblemInit = Object.freeze({
  status: BODY_TOO_LARGE_STATUS,
  code: BODY_TOO_LARGE_CODE,
  detail: 'The request body is too large',
})

/** The 413 problem for a body over `limit` bytes (the limit is named when it is known). */
export function bodyTooLargeProblem(limit?: number): ProblemInit {
  return limit === undefined
    ? BODY_TOO_LARGE
    : { ...BODY_TOO_LARGE, detail: `the body must be at most ${limit} bytes` }
}

/** The OpenAPI response object of the 413 answer. */
export function bodyTooLargeResponse(): Record<string, unknown> {
  return {
    description: 'The request body is larger than the route accepts (`request.body_too_large`).',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  }
}

/** `documentation` with the 413 answer added to every operation that takes a request body. */
export function withBodyLimitResponses<T extends Record<string, OperationDocumentation>>(
  documentation: T,
): T {
  const entries = Object.entries(documentation).map(([name, operation]) => [
    name,
    operation.requestBody === undefined
      ? operation
      : { ...operation, responses: { ...operation.responses, '413': bodyTooLargeResponse() } },
  ])
  return Object.fromEntries(entries) as T
}

/** A body parser's own "too large" error (Express `json()`/`urlencoded()`: status 413, exposed). */
export function isBodyTooLargeError(error: unknown): boolean {
  const candidate = error as { status?: unknown; expose?: unknown } | null
  return candidate?.status === 413 && candidate.expose === true
}

/** The limit a body parser's "too large" error names, when it names one. */
export function limitOf(error: unknown): number | undefined {
  const limit = (error as { limit?: unknown }).limit
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= 0 ? limit : undefined
}
