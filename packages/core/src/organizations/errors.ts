import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/**
 * Stable codes of organizations, memberships and invitations, and their classes:
 * - `organizations.invalid_input` (invalid-input, 400): a malformed request; nothing was written;
 * - `organizations.invalid_roles` (configuration): a role catalogue that cannot be used;
 * - `organizations.duplicate` (conflict, 409): an organization or invitation id already stored;
 * - `organizations.not_found` (forbidden, 403 by default): no such organization, member or invitation
 *   visible to the caller (never told apart from "not a member", so ids cannot be enumerated);
 * - `organizations.forbidden` (forbidden, 403): the actor lacks the permission the change needs;
 * - `organizations.rank_exceeded` (forbidden, 403): the role granted, or the member acted on, ranks
 *   above the actor's own role;
 * - `organizations.last_owner` (conflict, 409): the change would leave an organization without an owner;
 * - `organizations.address_mismatch` (forbidden, 403): the accepting account holds no verified address
 *   equal to the invitation's;
 * - `organizations.invitation_expired` (conflict, 409): the invitation's lifetime is over;
 * - `organizations.already_member` (conflict, 409): the account already belongs to the organization;
 * - `organizations.rate_limited` (rate-limited, 429): too many invitations for the organization or the
 *   inviter in the window;
 * - `organizations.join_request_limit` (conflict, 409): the organization holds as many pending requests
 *   to join as it may.
 */
export const OrganizationErrorCodes = {
  invalidInput: 'organizations.invalid_input',
  invalidRoles: 'organizations.invalid_roles',
  duplicate: 'organizations.duplicate',
  notFound: 'organizations.not_found',
  forbidden: 'organizations.forbidden',
  rankExceeded: 'organizations.rank_exceeded',
  lastOwner: 'organizations.last_owner',
  addressMismatch: 'organizations.address_mismatch',
  invitationExpired: 'organizations.invitation_expired',
  alreadyMember: 'organizations.already_member',
  rateLimited: 'organizations.rate_limited',
  joinRequestLimit: 'organizations.join_request_limit',
} as const

export type OrganizationErrorCode = (typeof OrganizationErrorCodes)[keyof typeof OrganizationErrorCodes]

const CLASSES: Readonly<Record<OrganizationErrorCode, ErrorClass>> = {
  'organizations.invalid_input': 'invalid-input',
  'organizations.invalid_roles': 'configuration',
  'organizations.duplicate': 'conflict',
  'organizations.not_found': 'forbidden',
  'organizations.forbidden': 'forbidden',
  'organizations.rank_exceeded': 'forbidden',
  'organizations.last_owner': 'conflict',
  'organizations.address_mismatch': 'forbidden',
  'organizations.invitation_expired': 'conflict',
  'organizations.already_member': 'conflict',
  'organizations.rate_limited': 'rate-limited',
  'organizations.join_request_limit': 'conflict',
}

export interface OrganizationErrorOptions extends PortcullisErrorOptions {
  /** For `organizations.rate_limited`: when to try again (`Retry-After`). */
  readonly retryAfterSeconds?: number
}

/** A refusal of an organization operation. Messages never carry a code, digest or address. */
export class OrganizationError extends PortcullisError {
  declare readonly code: OrganizationErrorCode
  declare readonly retryAfterSeconds?: number

  constructor(code: OrganizationErrorCode, message: string, options: OrganizationErrorOptions = {}) {
    super(code, CLASSES[code], message, options)
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
  }
}

export function invalidOrganizationInput(message: string): OrganizationError {
  return new OrganizationError(OrganizationErrorCodes.invalidInput, message)
}
