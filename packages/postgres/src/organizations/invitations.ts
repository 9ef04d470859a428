import { codeDigestMatches } from '@portcullis/core/codes'
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
} from '@portcullis/core/organizations'
import {
  OrganizationPermissions,
  validateAcceptInvitation,
  validateIssueInvitation,
  validateListInvitations,
  validateResendInvitation,
  validateRevokeInvitation,
} from '@portcullis/core/organizations'
import { and, desc, eq, gt, isNotNull } from 'drizzle-orm'
import { emailAddressesTable } from '../accounts/tables.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { withOutbox } from '../mail/outbox-insert.js'
import { invitationOf, membershipOf } from './records.js'
import {
  announce,
  duplicateOr,
  lockedStanding,
  lockOrganization,
  type OrganizationContext,
  requireKnownRole,
  roleIn,
} from './shared.js'
import { invitationsTable, membershipsTable } from './tables.js'

const INVITE = OrganizationPermissions.invite
const digestBytes = (digest: string) => new Uint8Array(Buffer.from(digest, 'base64url'))

export async function issueInvitation(
  context: OrganizationContext,
  request: IssueInvitationRequest,
): Promise<IssueInvitationOutcome> {
  const { invitation, outbox } = validateIssueInvitation(request)
  requireKnownRole(context, invitation.role)
  return inTransaction(context.pool, async (tx): Promise<IssueInvitationOutcome> => {
    const standing = await lockedStanding(
      tx,
      context,
      invitation.organizationId,
      invitation.inviterAccountId,
      INVITE,
    )
    if (typeof standing === 'string') return { outcome: standing }
    if (!context.roles.atOrBelow(standing.role, invitation.role)) return { outcome: 'rank-exceeded' }
    let row: typeof invitationsTable.$inferSelect | undefined
    try {
      ;[row] = await tx
        .insert(invitationsTable)
        .values({ ...invitation, digest: digestBytes(invitation.digest) })
        .returning()
    } catch (error) {
      throw duplicateOr(error, 'portcullis_invitations_pkey', 'an invitation with this id')
    }
    if (row === undefined) throw new Error('insert returned nothing')
    return withOutbox(tx, outbox, { outcome: 'issued', invitation: invitationOf(row) } as const)
  })
}

/**
 * One transaction: the invitation's organization is locked first (as every membership change does),
 * then the invitation row; the digest is compared in constant time, the address checked against the
 * account's verified addresses, and the invitation deleted as the membership is written. Two accepts,
 * or an accept and a revoke, queue on the same locks: one membership or none.
 */
export async function acceptInvitation(
  context: OrganizationContext,
  request: AcceptInvitationRequest,
): Promise<AcceptInvitationOutcome> {
  const { invitationId, candidates, accountId, now } = validateAcceptInvitation(request)
  return inTransaction(context.pool, async (tx): Promise<AcceptInvitationOutcome> => {
    const [seen] = await tx
      .select({ organizationId: invitationsTable.organizationId })
      .from(invitationsTable)
      .where(eq(invitationsTable.invitationId, invitationId))
    if (seen === undefined || !(await lockOrganization(tx, seen.organizationId)))
      return { outcome: 'not-found' }
    const [row] = await tx
      .select()
      .from(invitationsTable)
      .where(eq(invitationsTable.invitationId, invitationId))
      .for('update')
    if (row === undefined) return { outcome: 'not-found' }
    const stored = { keyVersion: row.keyVersion, digest: Buffer.from(row.digest).toString('base64url') }
    if (!codeDigestMatches(stored, candidates)) return { outcome: 'not-found' }
    if (row.expiresAt <= now) return { outcome: 'expired' }
    const [holds] = await tx
      .select({ accountId: emailAddressesTable.accountId })
      .from(emailAddressesTable)
      .where(
        and(
          eq(emailAddressesTable.accountId, accountId),
          eq(emailAddressesTable.address, row.address),
          isNotNull(emailAddressesTable.verifiedAt),
        ),
      )
      .for('key share')
    if (holds === undefined) return { outcome: 'address-mismatch' }
    await tx.delete(invitationsTable).where(eq(invitationsTable.invitationId, invitationId))
    if ((await roleIn(tx, row.organizationId, accountId)) !== undefined) return { outcome: 'already-member' }
    const [member] = await tx
      .insert(membershipsTable)
      .values({
        organizationId: row.organizationId,
        accountId,
        role: row.role,
        joinedAt: now,
        updatedAt: now,
      })
      .returning()
    if (member === undefined) throw new Error('insert returned nothing')
    await announce(tx, context, [accountId])
    return { outcome: 'accepted', membership: membershipOf(member) }
  })
}

export async function revokeInvitation(
  context: OrganizationContext,
  request: RevokeInvitationRequest,
): Promise<RevokeInvitationOutcome> {
  const { organizationId, invitationId, actorAccountId } = validateRevokeInvitation(request)
  return inTransaction(context.pool, async (tx): Promise<RevokeInvitationOutcome> => {
    const standing = await lockedStanding(tx, context, organizationId, actorAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    const ofThis = and(
      eq(invitationsTable.invitationId, invitationId),
      eq(invitationsTable.organizationId, organizationId),
    )
    const [row] = await tx
      .select({ role: invitationsTable.role })
      .from(invitationsTable)
      .where(ofThis)
      .for('update')
    if (row === undefined) return { outcome: 'not-found' }
    if (!context.roles.atOrBelow(standing.role, row.role)) return { outcome: 'rank-exceeded' }
    await tx.delete(invitationsTable).where(ofThis)
    return { outcome: 'revoked' }
  })
}

export async function resendInvitation(
  context: OrganizationContext,
  request: ResendInvitationRequest,
): Promise<ResendInvitationOutcome> {
  const change = validateResendInvitation(request)
  return inTransaction(context.pool, async (tx): Promise<ResendInvitationOutcome> => {
    const standing = await lockedStanding(tx, context, change.organizationId, change.actorAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    const ofThis = and(
      eq(invitationsTable.invitationId, change.invitationId),
      eq(invitationsTable.organizationId, change.organizationId),
    )
    const [current] = await tx
      .select({ role: invitationsTable.role })
      .from(invitationsTable)
      .where(ofThis)
      .for('update')
    if (current === undefined) return { outcome: 'not-found' }
    if (!context.roles.atOrBelow(standing.role, current.role)) return { outcome: 'rank-exceeded' }
    const [row] = await tx
      .update(invitationsTable)
      .set({ digest: digestBytes(change.digest), keyVersion: change.keyVersion, expiresAt: change.expiresAt })
      .where(ofThis)
      .returning()
    if (row === undefined) return { outcome: 'not-found' }
    return withOutbox(tx, change.outbox, { outcome: 'resent', invitation: invitationOf(row) } as const)
  })
}

export async function listInvitations(
  context: OrganizationContext,
  request: ListInvitationsRequest,
): Promise<ListInvitationsOutcome> {
  const { organizationId, actorAccountId, now } = validateListInvitations(request)
  return inStatement(async (): Promise<ListInvitationsOutcome> => {
    const role = await roleIn(context.db, organizationId, actorAccountId)
    if (role === undefined) return { outcome: 'not-found' }
    if (!context.roles.allows(role, INVITE)) return { outcome: 'forbidden' }
    const rows = await context.db
      .select()
      .from(invitationsTable)
      .where(and(eq(invitationsTable.organizationId, organizationId), gt(invitationsTable.expiresAt, now)))
      .orderBy(desc(invitationsTable.createdAt), desc(invitationsTable.invitationId))
      .limit(1000)
    return { outcome: 'listed', invitations: Object.freeze(rows.map(invitationOf)) }
  })
}
