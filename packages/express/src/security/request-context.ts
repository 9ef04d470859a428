import type { Principal } from '@portcullis/core/authentication'
import { anonymousContext, type SecurityContext } from '@portcullis/core/authorization'
import { HttpProblem, problems } from '@portcullis/http/problem'
import type { Request } from 'express'

declare global {
  namespace Express {
    interface Request {
      /**
       * Set by Portcullis: anonymous by `security.middleware`, then the principal, effective snapshot and
       * evidence by a secured route once its policy granted. Handlers of secured routes see it typed as
       * present (and with a non-null principal when the route's policy is not optional).
       */
      security?: SecurityContext
    }
  }
}

/** The request's security context; anonymous when Portcullis has not run on it. */
export function securityOf(request: Request): SecurityContext {
  return request.security ?? anonymousContext
}

/** The request's principal, or an `authentication.required` problem (401) when anonymous. */
export function requirePrincipal(request: Request): Principal {
  const principal = securityOf(request).principal
  if (principal === null) throw new HttpProblem(problems.authenticationRequired)
  return principal
}
