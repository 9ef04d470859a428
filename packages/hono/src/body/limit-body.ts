import { bodyTooLargeProblem } from '@portcullis/http/body'
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { sendProblem } from '../problem/problems.js'

/**
 * Hono's `bodyLimit` answering as every Portcullis route does: a body over `maxBytes` (declared or
 * streamed) is 413 problem+json `request.body_too_large` whose detail names the limit.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({ maxSize: maxBytes, onError: (c) => sendProblem(c, bodyTooLargeProblem(maxBytes)) })
}
