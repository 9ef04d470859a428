import { bodyTooLargeProblem } from '@portcullis/http/body'
import { type ProblemInit, problemFor, problems, renderProblem } from '@portcullis/http/problem'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/** Writes `init` as `application/problem+json`, with `Cache-Control: no-store` and `Retry-After` (always on 429 and 503). */
export function sendProblem(reply: FastifyReply, init: ProblemInit): FastifyReply {
  const rendered = renderProblem(init)
  return reply.code(rendered.status).headers(rendered.headers).send(rendered.body)
}

const UNSUPPORTED_MEDIA_TYPE: ProblemInit = {
  status: 415,
  code: 'request.unsupported_media_type',
  detail: 'The request body has an unsupported media type',
}

/**
 * The body limit that refused `request`: the route's `bodyLimit`, or Fastify's `bodyLimit` option when the
 * route has none. A content-type parser's own `bodyLimit` is not visible here: when the declared length
 * is within the route's limit, another limit refused the body, and none is named.
 */
function bodyLimitOf(request: FastifyRequest | undefined): number | undefined {
  const limit = request?.routeOptions.bodyLimit
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) return undefined
  const declared = request?.headers['content-length']
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= limit) return undefined
  return limit
}

/**
 * The problem for an error Fastify or a handler raised: Fastify's own client errors (body too large,
 * malformed JSON, unsupported media type, schema validation, bad URL) keep their status with a stable
 * code and a generic detail (a body too large names the limit when the request is given); everything
 * else is `problemFor` (typed errors by class, 500 otherwise).
 */
export function fastifyProblemFor(error: unknown, request?: FastifyRequest): ProblemInit {
  const fastifyError = error as Partial<FastifyError> | null
  const code = typeof fastifyError?.code === 'string' ? fastifyError.code : ''
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLargeProblem(bodyLimitOf(request))
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return UNSUPPORTED_MEDIA_TYPE
  const status = fastifyError?.statusCode
  const clientError = typeof status === 'number' && status >= 400 && status < 500
  if (clientError && (code.startsWith('FST_ERR_') || fastifyError?.validation !== undefined)) {
    return { ...problems.invalidRequest, status }
  }
  return problemFor(error)
}

/** Fastify's error handler rendering problem+json; `onError` sees every error (for logging). */
export function problemErrorHandler(
  onError: ((error: unknown, request: FastifyRequest) => void) | undefined,
) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    if (onError !== undefined) {
      try {
        onError(error, request)
      } catch {
        // A failing logger must not turn an error response into a crash.
      }
    }
    if (reply.sent) return
    sendProblem(reply, fastifyProblemFor(error, request))
  }
}
