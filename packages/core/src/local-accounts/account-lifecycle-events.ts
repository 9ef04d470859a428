// The fields of the security events of an account's addresses, sign-up, sign-in codes, password resets,
// impersonations and requests to join an organization: part of `SecurityEventFields`.

/** Security events of the email flows, impersonations and join requests, by type. */
export interface AccountLifecycleEventFields {
  /** An email change was asked for (step-up spent): a code went to the new address, a notice to the old. */
  'email.change_requested': { readonly accountId: string; readonly clientAddress?: string }
  /** The new address was confirmed with its code and is the primary now (the epoch moved). */
  'email.changed': { readonly accountId: string; readonly clientAddress?: string }
  /** An email change was undone from the old address's link (the epoch moved). */
  'email.change_undone': { readonly accountId: string; readonly clientAddress?: string }
  /** A signed-in account added an address (step-up spent); its verification code is on its way. */
  'email.address_added': { readonly accountId: string; readonly clientAddress?: string }
  /** A signed-in account removed one of its addresses (step-up spent). */
  'email.address_removed': { readonly accountId: string; readonly clientAddress?: string }
  /** A sign-in code was asked for (`known`: a verified address of an active account; same answer). */
  'sign_in_code.requested': {
    readonly known: boolean
    readonly accountId?: string
    readonly clientAddress?: string
  }
  /** A sign-in code was refused (wrong, used, expired or exhausted). */
  'sign_in_code.failed': { readonly clientAddress?: string }
  /** Email sign-up created an account with an unverified address (a verification code is on its way). */
  'sign_up.created': { readonly accountId: string; readonly clientAddress?: string }
  /** Email sign-up with an address another account verified: no account, that account is told instead. */
  'sign_up.existing_address': { readonly accountId: string; readonly clientAddress?: string }
  /**
   * Email sign-up refused after the uniform answer (`invite_invalid`, or `address_taken`: another account
   * verified the address between the lookup and the sign-up's transaction): nothing was created or sent.
   */
  'sign_up.refused': { readonly reason: 'invite_invalid' | 'address_taken'; readonly clientAddress?: string }
  /** A new verification code was sent to an unverified address of the account. */
  'email.verification_sent': {
    readonly accountId: string
    readonly clientAddress?: string
    /** The administrator, when an impersonation of the account did it. */
    readonly actorId?: string
    /** That impersonation. */
    readonly impersonationId?: string
  }
  /** An address of the account was verified with its code. */
  'email.verified': {
    readonly accountId: string
    readonly clientAddress?: string
    /** The administrator, when an impersonation of the account did it. */
    readonly actorId?: string
    /** That impersonation. */
    readonly impersonationId?: string
  }
  /**
   * The `addressVerified` listener of `AccountEmail` threw after an address was verified (the
   * verification stands): `reason` is the error's stable code, or `unknown`; never its message or the address.
   */
  'email.address_verified_listener_failed': {
    readonly accountId: string
    readonly reason: string
    readonly clientAddress?: string
    /** The administrator, when an impersonation of the account did it. */
    readonly actorId?: string
    /** That impersonation. */
    readonly impersonationId?: string
  }
  /** A verification code was refused: wrong, used or expired (`invalid_code`), its last attempt, or `taken`. */
  'email.verification_failed': {
    readonly reason: 'invalid_code' | 'exhausted' | 'taken'
    readonly accountId?: string
    readonly clientAddress?: string
    /** The administrator, when an impersonation of the account did it. */
    readonly actorId?: string
    /** That impersonation. */
    readonly impersonationId?: string
  }
  /** A password reset was asked for (`known`: the address has an account; the answer was the same). */
  'password_reset.requested': {
    readonly known: boolean
    readonly accountId?: string
    readonly clientAddress?: string
  }
  /** A reset code was right and the account's second factor is next. */
  'password_reset.second_factor_required': { readonly accountId: string; readonly clientAddress?: string }
  /** A reset step was refused (`invalid_code`, `expired`, `exhausted`, `passkey_required`, `pending_invalid`, ...). */
  'password_reset.failed': {
    readonly reason: string
    readonly accountId?: string
    readonly clientAddress?: string
  }
  /** A password was reset by email: the epoch moved; `signedIn` when the reset signed the person in. */
  'password_reset.completed': {
    readonly accountId: string
    readonly signedIn: boolean
    readonly clientAddress?: string
  }
  /**
   * An administrator (`actorId`) started acting as the account: `reason` is the administrator's own words,
   * `sessionHandle` the impersonation session's, `expiresInSeconds` its bound.
   */
  'impersonation.started': {
    readonly accountId: string
    readonly actorId: string
    readonly impersonationId: string
    readonly reason: string
    readonly sessionHandle: string
    readonly expiresInSeconds: number
    readonly clientAddress?: string
  }
  /**
   * Impersonations ended: one by its administrator (`ended_by_administrator`, with the account and the
   * impersonation), or every one the administrator started, when the administrator's own sessions ended
   * (`administrator_signed_out`, `sessions` ended).
   */
  'impersonation.ended': {
    readonly actorId: string
    readonly reason: 'ended_by_administrator' | 'administrator_signed_out' | 'expired'
    readonly accountId?: string
    readonly impersonationId?: string
    readonly sessionHandle?: string
    readonly sessions?: number
    readonly clientAddress?: string
  }
  /**
   * During an impersonation of the account, its administrator (`actorId`) was refused `act`: something
   * that would outlive the impersonation or reach beyond the account (an API key issued or rotated, an
   * app connected, an invitation sent, a join request approved). Nothing changed.
   */
  'impersonation.refused': {
    readonly accountId: string
    readonly actorId: string
    readonly impersonationId: string
    readonly act: string
    readonly clientAddress?: string
  }
  /** The account asked to join the organization (a verified domain in `automatic-suggestion` mode). */
  'organization.join_requested': {
    readonly accountId: string
    readonly organizationId: string
    readonly requestId: string
  }
  /** A manager (`actorId`) approved the account's request: it is a member now. */
  'organization.join_approved': {
    readonly accountId: string
    readonly actorId: string
    readonly organizationId: string
    readonly requestId: string
    readonly role: string
  }
  /** A manager (`actorId`) declined the account's request. */
  'organization.join_declined': {
    readonly accountId: string
    readonly actorId: string
    readonly organizationId: string
    readonly requestId: string
  }
}
