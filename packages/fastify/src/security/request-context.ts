import type { Principal } from '@portcullis/core/authentication'
import { anonymousContext, type SecurityContext } from '@portcullis/core/authorization'
import { HttpProblem, problems } from '@portcullis/http/problem'
import type { FastifyRequest } from 'fastify'

/** The request's security context; anonymous when Portcullis has not run on it. */
export function securityOf(request: FastifyRequest): SecurityContext {
  return (request.security as SecurityContext | null) ?? anonymousContext
}

/** The request's principal, or an `authentication.required` problem (401) when anonymous. */
export function requirePrincipal(request: FastifyRequest): Principal {
  const principal = securityOf(request).principal
  if (principal === null) throw new HttpProblem(problems.authenticationRequired)
  return principal
}
