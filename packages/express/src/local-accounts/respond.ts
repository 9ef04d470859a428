import { isPortcullisError } from '@portcullis/core/errors'
import type { LocalAccounts, LocalRequestInfo } from '@portcullis/core/local-accounts'
import { type ProblemInit, problemFor } from '@portcullis/http/problem'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { sendProblem } from '../problem/send-problem.js'

/** Codes whose message names a rule (never a value) and is shown to the client as the detail. */
const RULE_CODES = new Set(['local.invalid_username', 'local.invalid_password'])

/** The problem for an error of a local-account route: client-safe details where the error has one. */
export function localProblem(error: unknown): ProblemInit {
  const problem = problemFor(error)
  if (!isPortcullisError(error)) return problem
  const detail = (error as { detail?: unknown }).detail
  if (typeof detail === 'string') return { ...problem, detail }
  if (RULE_CODES.has(error.code)) return { ...problem, detail: error.message }
  return problem
}

/**
 * Wraps an async route handler: `Cache-Control: no-store` on every answer, and any error rendered as a
 * problem here (so a typed local-account error keeps its client-safe detail).
 */
export function noStore(
  handler: (request: Request, response: Response) => Promise<void>,
  onError: ((error: unknown, request: Request) => void) | undefined,
): RequestHandler {
  return (request: Request, response: Response, _next: NextFunction) => {
    response.setHeader('Cache-Control', 'no-store')
    handler(request, response).catch((error: unknown) => {
      try {
        onError?.(error, request)
      } catch {
        // A failing observer must not change the answer.
      }
      sendProblem(response, localProblem(error))
    })
  }
}

/** What the core service needs to know about the request (client address, user agent). */
export function requestInfo(request: Request): LocalRequestInfo {
  return {
    peerAddress: request.socket.remoteAddress,
    forwardedFor: request.headers['x-forwarded-for'],
    userAgent: request.headers['user-agent'],
  }
}

/** The client address as the service resolves it (direct peer, or behind trusted proxies). */
export function clientAddressOf(local: LocalAccounts, request: Request): string | undefined {
  return local.clientAddress(requestInfo(request))
}
