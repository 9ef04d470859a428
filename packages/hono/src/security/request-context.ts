import type { Principal } from '@portcullis/core/authentication'
import { anonymousContext, type SecurityContext } from '@portcullis/core/authorization'
import { HttpProblem, problems } from '@portcullis/http/problem'
import type { Context } from 'hono'
import type { PortcullisEnv } from './types.js'

/** The request's security context (`c.var.security`); anonymous when Portcullis has not run on it. */
export function securityOf(c: Context): SecurityContext {
  return ((c as Context<PortcullisEnv>).get('security') as SecurityContext | undefined) ?? anonymousContext
}

/** The request's principal, or an `authentication.required` problem (401) when anonymous. */
export function requirePrincipal(c: Context): Principal {
  const principal = securityOf(c).principal
  if (principal === null) throw new HttpProblem(problems.authenticationRequired)
  return principal
}
