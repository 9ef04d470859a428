import type { Impersonations } from '@portcullis/core/impersonation'
import type { SecuredRequest } from '@portcullis/express'
import { requestInfo } from '../accounts/forms.js'

/** What a refused act says on its page: nothing was made, and why. */
export const IMPERSONATION_REFUSED_WORDS =
  'Refused during an impersonation: an administrator acting as the account cannot make or replace API keys, connect apps, invite people or approve requests to join, because these would outlast the impersonation. Nothing changed. End the impersonation first.'

/**
 * Refuses `act` when the request is an impersonation (`impersonation.refused`, 403; the security log
 * records it with the administrator); nothing for a person acting as themselves.
 */
export function refuseDuringImpersonation(
  impersonations: Pick<Impersonations, 'refuse'>,
  request: SecuredRequest,
  act: string,
): void {
  impersonations.refuse({ principal: request.security.principal, act, request: requestInfo(request) })
}
