import { isPortcullisError } from '@portcullis/core/errors'
import { ImpersonationErrorCodes } from '@portcullis/core/impersonation'
import { OrganizationErrorCodes, organizationRefusal } from '@portcullis/core/organizations'
import { IMPERSONATION_REFUSED_WORDS } from '../impersonation/refused-acts.js'
import type { Flash } from '../layout/flash.js'

/** The organization store's refusals in words (the flash of the page the person acted on). */
const WORDS: Readonly<Record<string, string>> = {
  [OrganizationErrorCodes.invalidInput]: 'Check what you typed: an email address, a role of the list.',
  [OrganizationErrorCodes.duplicate]: 'That organization id is taken: choose another.',
  [OrganizationErrorCodes.notFound]: 'No such organization, member or invitation.',
  [OrganizationErrorCodes.forbidden]: 'Your role does not allow that.',
  [OrganizationErrorCodes.rankExceeded]: 'You can grant, and act on, only roles at or below your own.',
  [OrganizationErrorCodes.lastOwner]:
    'An organization keeps at least one owner: make someone else owner first.',
  [OrganizationErrorCodes.addressMismatch]:
    'This invitation was sent to an address this account has not verified. Sign in with the account that holds it, or verify it first.',
  [OrganizationErrorCodes.invitationExpired]: 'This invitation has expired: ask for a new one.',
  [OrganizationErrorCodes.alreadyMember]: 'You are already a member of this organization.',
  [OrganizationErrorCodes.rateLimited]: 'Too many invitations for now: try again later.',
  [OrganizationErrorCodes.joinRequestLimit]:
    'This organization has as many requests waiting as it takes: try again once its administrators decide.',
  [ImpersonationErrorCodes.refused]: IMPERSONATION_REFUSED_WORDS,
}

/**
 * A store outcome other than success, as the typed error (`organizationRefusal`); anything that is not a
 * refusal of the organization stores (an outage) is thrown on, to the error pages (503).
 */
export function refusedBy(outcome: string): never {
  throw organizationRefusal(outcome)
}

/** The flash of a refused organization action, with the field it concerns. */
export function organizationFlash(error: unknown, field?: string): Flash {
  if (!isPortcullisError(error)) throw error
  const words = WORDS[error.code]
  if (words === undefined) throw error
  return { error: words, ...(field === undefined ? {} : { field }) }
}
