import type { MCPResourceResponse } from '@portcullis/core/mcp'
import { inProcessHeaders } from '@portcullis/http/mcp'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { IN_PROCESS_HEADER, linkedToParent } from '../security/in-process.js'

/** A problem document standing in for a route's answer (timeouts, oversize bodies, unhandled errors). */
function problem(status: number, title: string): MCPResourceResponse {
  return {
    status,
    contentType: 'application/problem+json',
    body: Buffer.from(JSON.stringify({ type: 'about:blank', title, status })),
  }
}

export interface ReadLimits {
  readonly timeoutMs: number
  readonly maxBytes: number
}

/**
 * Runs `GET path` in-process (`fastify.inject`) with the caller's headers and credentials and captures
 * status, content type and body. The inner request shares the caller's per-request policy evaluation
 * (linked by a one-read token), so no mechanism runs twice; the route's own `onRequest` hooks, policy
 * and guards still decide. A route that does not answer within `timeoutMs` yields 504, a body over
 * `maxBytes` 413, and a failed injection 500 (never a stack).
 */
export function injectRead(
  fastify: FastifyInstance,
  caller: FastifyRequest,
  path: string,
  limits: ReadLimits,
): Promise<MCPResourceResponse> {
  return linkedToParent(caller, async (token) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<MCPResourceResponse>((resolve) => {
      timer = setTimeout(() => resolve(problem(504, 'Gateway Timeout')), limits.timeoutMs)
    })
    const read = fastify
      .inject({
        method: 'GET',
        url: path,
        headers: { ...inProcessHeaders(caller.raw.rawHeaders), [IN_PROCESS_HEADER]: token },
        remoteAddress: caller.raw.socket?.remoteAddress ?? '127.0.0.1',
      })
      .then(
        (response): MCPResourceResponse => {
          const body = response.rawPayload
          if (body.byteLength > limits.maxBytes) return problem(413, 'Content Too Large')
          const contentType = response.headers['content-type']
          return {
            status: response.statusCode,
            ...(typeof contentType === 'string' ? { contentType } : {}),
            body,
          }
        },
        () => problem(500, 'Resource read failed'),
      )
    try {
      return await Promise.race([read, timeout])
    } finally {
      clearTimeout(timer)
    }
  })
}
