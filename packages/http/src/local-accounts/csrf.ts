import type { LocalAccounts, LocalRequestInfo } from '@portcullis/core/local-accounts'
import type { ProblemInit } from '../problem/problem.js'

/** What the CSRF check reads from a request. */
export interface CsrfInput {
  readonly method: string
  header(name: string): string | undefined
  readonly cookieHeader: string | undefined
  readonly requestInfo: LocalRequestInfo
}

const CSRF_REFUSED: ProblemInit = Object.freeze({
  status: 403,
  code: 'local.csrf_refused',
  detail: 'Cross-site request refused',
})
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

/**
 * The CSRF rules of the local-account routes: `decide` checks a request anchored on its session cookie
 * or pre-session seed; `guard` is what runs in front of every route of the app: an unsafe request that
 * carries the session cookie must pass (`local.csrf_refused` otherwise), whatever route it is for.
 */
export function localCsrf(local: LocalAccounts) {
  const sessions = local.sessionMechanismName !== undefined
  const decide = (input: CsrfInput, anchor: string | undefined, accountId?: string) =>
    local.csrf.check({
      method: input.method,
      secFetchSite: input.header('sec-fetch-site'),
      origin: input.header('origin'),
      presentedToken: input.header(local.csrf.header),
      sessionId: anchor,
      accountId,
      clientAddress: local.clientAddress(input.requestInfo),
    })
  return {
    refused: CSRF_REFUSED,
    decide,
    /** The refusal for a request, or undefined when it may proceed. */
    guard(input: CsrfInput): ProblemInit | undefined {
      if (!sessions || SAFE.has(input.method)) return undefined
      const sessionId = local.csrf.sessionIdFrom(input.cookieHeader)
      if (sessionId === undefined) return undefined
      return decide(input, sessionId).ok ? undefined : CSRF_REFUSED
    },
  }
}
