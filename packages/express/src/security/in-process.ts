import type { RequestHandler } from 'express'

/**
 * A middleware may carry, under this key, the form it takes inside an in-process request (an MCP resource
 * read): the same decisions without work only a response sent to a client needs.
 */
export const IN_PROCESS_FORM = Symbol('portcullis.inProcessForm')

/** The in-process form of `handler`, if it has one. */
export function inProcessFormOf(handler: unknown): RequestHandler | undefined {
  const form = (handler as { [IN_PROCESS_FORM]?: unknown } | null | undefined)?.[IN_PROCESS_FORM]
  return typeof form === 'function' ? (form as RequestHandler) : undefined
}
