import type { IncomingMessage } from 'node:http'
import { HttpProblem, type ProblemInit, problems } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'

/** The 413 problem (RFC 9110 §15.5.14 Content Too Large) for a body over `limit` bytes (the limit is named when it is known). */
export function bodyTooLargeProblem(limit?: number): ProblemInit {
  return limit === undefined
    ? problems.bodyTooLarge
    : { ...problems.bodyTooLarge, detail: `the body must be at most ${limit} bytes` }
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

/**
 * The bytes of the body, at most `limit`. A declared `Content-Length` over the limit is refused before
 * anything is read; a chunked (or lying) body is refused as soon as the bytes received pass the limit.
 * Either way the rest of the body is drained, not buffered, so the 413 reaches a client that is still
 * sending and the connection stays usable; Node's `requestTimeout` bounds a body that never ends.
 */
export function readLimitedBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new HttpProblem(bodyTooLargeProblem(limit))
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    request.resume()
    return Promise.reject(tooLarge())
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (error: Error | undefined, value?: Buffer) => {
      if (done) return
      done = true
      request.off('data', onData)
      if (error === undefined) resolve(value ?? Buffer.alloc(0))
      else reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > limit) {
        chunks.length = 0
        request.resume()
        finish(tooLarge())
      } else chunks.push(chunk)
    }
    request.on('data', onData)
    request.once('end', () => finish(undefined, Buffer.concat(chunks)))
    request.once('error', (error) => finish(error))
  })
}
