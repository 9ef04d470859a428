import { randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

/**
 * The header that links an in-process request (an MCP resource read, made with `fastify.inject`) to the
 * request it is made for. Its value is a fresh 256-bit random token known only for the duration of the
 * read, so no client can present a live one; an unknown token links nothing.
 */
export const IN_PROCESS_HEADER = 'portcullis-in-process'

const parents = new Map<string, FastifyRequest>()

/** The request an in-process request is made for, when it carries a live token. */
export function inProcessParentOf(request: FastifyRequest): FastifyRequest | undefined {
  const token = request.headers[IN_PROCESS_HEADER]
  return typeof token === 'string' ? parents.get(token) : undefined
}

/** Runs `read` with a token linking its in-process request to `parent`; the token dies with the read. */
export async function linkedToParent<T>(
  parent: FastifyRequest,
  read: (token: string) => Promise<T>,
): Promise<T> {
  const token = randomBytes(32).toString('base64url')
  parents.set(token, parent)
  try {
    return await read(token)
  } finally {
    parents.delete(token)
  }
}
