import type { Request } from 'express'

const PARENT = Symbol('portcullis.evaluationParent')

type Linked = { [PARENT]?: Request }

/**
 * Makes `child`, an in-process request made on behalf of `parent` (an MCP resource read), share the
 * parent's per-request policy evaluation: every mechanism and the authorization resolver still run at
 * most once for the caller's one HTTP request, whichever route evaluates a policy.
 */
export function inheritEvaluation(child: object, parent: Request): void {
  ;(child as Linked)[PARENT] = parent
}

/** The request whose evaluation `request` shares, if any. */
export function evaluationParent(request: Request): Request | undefined {
  return (request as Linked)[PARENT]
}
