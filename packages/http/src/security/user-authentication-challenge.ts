import type { SecurityContext, UserAuthenticationChallenge } from '@portcullis/core/authorization'

/** Whether a credential of one of the bearer mechanisms verified the request. */
export function isBearerRequest(context: SecurityContext, bearerMechanisms: ReadonlySet<string>): boolean {
  if (bearerMechanisms.size === 0) return false
  for (const item of context.evidence) if (bearerMechanisms.has(item.mechanism)) return true
  return false
}

/**
 * The RFC 9470 `WWW-Authenticate` challenge: `Bearer error="insufficient_user_authentication"` with the
 * `acr_values` and `max_age` that would satisfy the route, so a standard client re-authorizes and retries.
 * The values come from route configuration (validated at startup), never from the request.
 */
export function insufficientUserAuthentication(challenge: UserAuthenticationChallenge | undefined): string {
  const parts = [
    'Bearer error="insufficient_user_authentication"',
    'error_description="A different authentication level is required"',
  ]
  const acrValues = challenge?.acrValues
  if (acrValues !== undefined && acrValues.length > 0) parts.push(`acr_values="${acrValues.join(' ')}"`)
  if (challenge?.maxAge !== undefined) parts.push(`max_age="${challenge.maxAge}"`)
  return parts.join(', ')
}
