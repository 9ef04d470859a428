import { codeDigestMatches } from '../codes/code-keys.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { OrganizationError, OrganizationErrorCodes } from './errors.js'
import { invitationOf, type MemoryOrganizationTables } from './memory-tables.js'
import {
  validateAcceptInvitation,
  validateIssueInvitation,
  validateListInvitations,
  validateResendInvitation,
  validateRevokeInvitation,
} from './request-input.js'
import type {
  AcceptInvitationOutcome,
  AcceptInvitationRequest,
  IssueInvitationOutcome,
  IssueInvitationRequest,
  ListInvitationsOutcome,
  ListInvitationsRequest,
  ResendInvitationOutcome,
  ResendInvitationRequest,
  RevokeInvitationOutcome,
  RevokeInvitationRequest,
} from './requests.js'
import { OrganizationPermissions } from './roles.js'

const INVITE = OrganizationPermissions.invite

export async function issueInvitation(
  tables: MemoryOrganizationTables,
  request: IssueInvitationRequest,
): Promise<IssueInvitationOutcome> {
  const { invitation, outbox } = validateIssueInvitation(request)
  tables.requireRole(invitation.role)
  return tables.queue.run((): IssueInvitationOutcome => {
    const writeOutbox = tables.stageOutbox(outbox)
    const standing = tables.standing(invitation.organizationId, invitation.inviterAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    if (!tables.roles.atOrBelow(standing.role, invitation.role)) return { outcome: 'rank-exceeded' }
    if (tables.invitations.has(invitation.invitationId)) {
      throw new OrganizationError(OrganizationErrorCodes.duplicate, 'an invitation with this id is stored')
    }
    tables.invitations.set(invitation.invitationId, invitation)
    writeOutbox()
    return { outcome: 'issued', invitation: invitationOf(invitation) }
  })
}

export async function acceptInvitation(
  tables: MemoryOrganizationTables,
  request: AcceptInvitationRequest,
): Promise<AcceptInvitationOutcome> {
  const { invitationId, candidates, accountId, now } = validateAcceptInvitation(request)
  return tables.queue.run(async (): Promise<AcceptInvitationOutcome> => {
    const accounts = tables.accounts
    if (accounts === undefined) {
      throw new ConfigurationError(
        'organizations.accounts_not_joined',
        'accepting needs the accounts: pass this store to MemoryAccountStore({ cascade: [organizations] })',
      )
    }
    const invitation = tables.invitations.get(invitationId)
    if (invitation === undefined || !codeDigestMatches(invitation, candidates))
      return { outcome: 'not-found' }
    if (invitation.expiresAt <= now) return { outcome: 'expired' }
    if (accounts.verifiedHolderOf(invitation.address) !== accountId) return { outcome: 'address-mismatch' }
    tables.invitations.delete(invitationId)
    if (tables.members.get(invitation.organizationId)?.has(accountId) === true) {
      return { outcome: 'already-member' }
    }
    const membership = tables.addMember(invitation.organizationId, accountId, invitation.role, now)
    await tables.announce([accountId])
    return { outcome: 'accepted', membership }
  })
}

export async function revokeInvitation(
  tables: MemoryOrganizationTables,
  request: RevokeInvitationRequest,
): Promise<RevokeInvitationOutcome> {
  const { organizationId, invitationId, actorAccountId } = validateRevokeInvitation(request)
  return tables.queue.run((): RevokeInvitationOutcome => {
    const standing = tables.standing(organizationId, actorAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    const invitation = tables.invitations.get(invitationId)
    if (invitation === undefined || invitation.organizationId !== organizationId)
      return { outcome: 'not-found' }
    if (!tables.roles.atOrBelow(standing.role, invitation.role)) return { outcome: 'rank-exceeded' }
    tables.invitations.delete(invitationId)
    return { outcome: 'revoked' }
  })
}

export async function resendInvitation(
  tables: MemoryOrganizationTables,
  request: ResendInvitationRequest,
): Promise<ResendInvitationOutcome> {
  const change = validateResendInvitation(request)
  return tables.queue.run((): ResendInvitationOutcome => {
    const writeOutbox = tables.stageOutbox(change.outbox)
    const standing = tables.standing(change.organizationId, change.actorAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    const invitation = tables.invitations.get(change.invitationId)
    if (invitation === undefined || invitation.organizationId !== change.organizationId) {
      return { outcome: 'not-found' }
    }
    if (!tables.roles.atOrBelow(standing.role, invitation.role)) return { outcome: 'rank-exceeded' }
    const next = Object.freeze({
      ...invitation,
      digest: change.digest,
      keyVersion: change.keyVersion,
      expiresAt: change.expiresAt,
    })
    tables.invitations.set(change.invitationId, next)
    writeOutbox()
    return { outcome: 'resent', invitation: invitationOf(next) }
  })
}

export async function listInvitations(
  tables: MemoryOrganizationTables,
  request: ListInvitationsRequest,
): Promise<ListInvitationsOutcome> {
  const { organizationId, actorAccountId, now } = validateListInvitations(request)
  const standing = tables.standing(organizationId, actorAccountId, INVITE)
  if (typeof standing === 'string') return { outcome: standing }
  const pending = [...tables.invitations.values()]
    .filter((row) => row.organizationId === organizationId && row.expiresAt > now)
    .sort(
      (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.invitationId < b.invitationId ? 1 : -1),
    )
    .map(invitationOf)
  return { outcome: 'listed', invitations: Object.freeze(pending) }
}
