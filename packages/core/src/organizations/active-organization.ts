import type { AuthenticationEvidence } from '../authentication/principal.js'
import type { AuthorizationSnapshot } from '../authorization/snapshot.js'
import { ACTIVE_ORGANIZATION_ATTRIBUTE } from '../local-accounts/sessions/session-mechanism.js'
import { OrganizationError, OrganizationErrorCodes } from './errors.js'
import type { MembershipStore } from './port.js'
import type { Membership } from './records.js'
import { requireOrganizationId } from './validate.js'

/**
 * The snapshot attribute `membershipResolver` sets to the session's active organization, only while the
 * account is a member of it (the role is then `snapshot.tenantRoles(id)`, read from the store).
 */
export const ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE = 'activeOrganizationId'

/** Where the choice is kept: the session of this handle (`LocalAccounts` has it). */
export interface ActiveOrganizationSessions {
  setActiveOrganization(accountId: string, handle: string, organizationId: string | null): Promise<boolean>
}

export interface SetActiveOrganizationInput {
  /** The signed-in account, from the verified principal. */
  readonly accountId: string
  /** The handle of the session the request came with, from its evidence. */
  readonly sessionHandle: string
  /** The organization to work in, or null to clear the choice. */
  readonly organizationId: string | null
}

export type SetActiveOrganizationOutcome =
  | { readonly outcome: 'set'; readonly membership: Membership }
  | { readonly outcome: 'cleared' }
  /** The session ended while the choice was being written: nothing was kept. */
  | { readonly outcome: 'session-gone' }

/**
 * Sets the active organization of the caller's session once the membership store says the account is a
 * member at this moment, or clears it. An organization the account does not belong to, whether it
 * exists or not, is `organizations.not_found` and writes nothing. The membership's role is the store's;
 * nothing from the request is kept but the organization id.
 */
export async function setActiveOrganization(
  parts: {
    readonly memberships: Pick<MembershipStore, 'membershipsOf'>
    readonly sessions: ActiveOrganizationSessions
  },
  input: SetActiveOrganizationInput,
): Promise<SetActiveOrganizationOutcome> {
  const { accountId, sessionHandle } = input
  if (input.organizationId === null) {
    const cleared = await parts.sessions.setActiveOrganization(accountId, sessionHandle, null)
    return cleared ? { outcome: 'cleared' } : { outcome: 'session-gone' }
  }
  const organizationId = requireOrganizationId(input.organizationId)
  const membership = (await parts.memberships.membershipsOf(accountId)).find(
    (candidate) => candidate.organizationId === organizationId,
  )
  if (membership === undefined) {
    throw new OrganizationError(OrganizationErrorCodes.notFound, 'no such organization for this account')
  }
  const set = await parts.sessions.setActiveOrganization(accountId, sessionHandle, organizationId)
  return set ? { outcome: 'set', membership } : { outcome: 'session-gone' }
}

/**
 * The active organization a session credential carries, as the session store answered it (a choice,
 * not a grant): undefined without one. Only session evidence counts.
 */
export function sessionActiveOrganization(evidence: readonly AuthenticationEvidence[]): string | undefined {
  for (const item of evidence) {
    if (item.credentialType !== 'session') continue
    const value = item.attributes?.[ACTIVE_ORGANIZATION_ATTRIBUTE]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

/**
 * The request's active organization and the caller's roles there, from a snapshot `membershipResolver`
 * built: undefined when the session has none, or the account is no longer a member.
 */
export function activeOrganizationOf(
  snapshot: AuthorizationSnapshot,
): { readonly organizationId: string; readonly roles: readonly string[] } | undefined {
  const organizationId = snapshot.attributes[ACTIVE_ORGANIZATION_SNAPSHOT_ATTRIBUTE]
  if (typeof organizationId !== 'string' || !snapshot.inTenant(organizationId)) return undefined
  return Object.freeze({ organizationId, roles: snapshot.tenantRoles(organizationId) })
}
