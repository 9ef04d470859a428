import type {
  LeaveOrganizationOutcome,
  LeaveOrganizationRequest,
  ListMembersOutcome,
  ListMembersRequest,
  Membership,
  RemoveMemberOutcome,
  RemoveMemberRequest,
  SetRoleOutcome,
  SetRoleRequest,
} from '@portcullis/core/organizations'
import {
  OrganizationPermissions,
  OWNER_ROLE,
  validateLeave,
  validateListMembers,
  validateRemoveMember,
  validateSetRole,
} from '@portcullis/core/organizations'
import { and, asc, eq, gt } from 'drizzle-orm'
import { inStatement, inTransaction } from '../client/transaction.js'
import { membershipOf } from './records.js'
import {
  announce,
  lockedStanding,
  lockOrganization,
  type OrganizationContext,
  ownerCount,
  requireKnownRole,
  roleIn,
} from './shared.js'
import { membershipsTable } from './tables.js'

const ofMember = (organizationId: string, accountId: string) =>
  and(eq(membershipsTable.organizationId, organizationId), eq(membershipsTable.accountId, accountId))

/** One indexed read (`portcullis_memberships_account_idx`): what the resolver runs per uncached request. */
export async function membershipsOf(
  context: OrganizationContext,
  accountId: string,
): Promise<readonly Membership[]> {
  const rows = await inStatement(() =>
    context.db
      .select()
      .from(membershipsTable)
      .where(eq(membershipsTable.accountId, accountId))
      .orderBy(asc(membershipsTable.organizationId)),
  )
  return Object.freeze(rows.map(membershipOf))
}

export async function listMembers(
  context: OrganizationContext,
  request: ListMembersRequest,
): Promise<ListMembersOutcome> {
  const { organizationId, actorAccountId, limit, after } = validateListMembers(request)
  return inStatement(async (): Promise<ListMembersOutcome> => {
    const [actor] = await context.db
      .select({ role: membershipsTable.role })
      .from(membershipsTable)
      .where(ofMember(organizationId, actorAccountId))
    if (actor === undefined) return { outcome: 'not-found' }
    const rows = await context.db
      .select()
      .from(membershipsTable)
      .where(
        after === undefined
          ? eq(membershipsTable.organizationId, organizationId)
          : and(eq(membershipsTable.organizationId, organizationId), gt(membershipsTable.accountId, after)),
      )
      .orderBy(asc(membershipsTable.accountId))
      .limit(limit)
    return { outcome: 'listed', members: Object.freeze(rows.map(membershipOf)) }
  })
}

export async function setRole(
  context: OrganizationContext,
  request: SetRoleRequest,
): Promise<SetRoleOutcome> {
  const { organizationId, actorAccountId, accountId, role, now } = validateSetRole(request)
  requireKnownRole(context, role)
  return inTransaction(context.pool, async (tx): Promise<SetRoleOutcome> => {
    const standing = await lockedStanding(
      tx,
      context,
      organizationId,
      actorAccountId,
      OrganizationPermissions.manageMembers,
    )
    if (typeof standing === 'string') return { outcome: standing }
    const current = await roleIn(tx, organizationId, accountId)
    if (current === undefined) return { outcome: 'not-found' }
    const { roles } = context
    if (!roles.atOrBelow(standing.role, role) || !roles.atOrBelow(standing.role, current)) {
      return { outcome: 'rank-exceeded' }
    }
    if (current === OWNER_ROLE && role !== OWNER_ROLE && (await ownerCount(tx, organizationId)) <= 1) {
      return { outcome: 'last-owner' }
    }
    const [row] = await tx
      .update(membershipsTable)
      .set({ role, updatedAt: now })
      .where(ofMember(organizationId, accountId))
      .returning()
    if (row === undefined) return { outcome: 'not-found' }
    await announce(tx, context, [accountId])
    return { outcome: 'changed', membership: membershipOf(row) }
  })
}

export async function removeMember(
  context: OrganizationContext,
  request: RemoveMemberRequest,
): Promise<RemoveMemberOutcome> {
  const { organizationId, actorAccountId, accountId, now } = validateRemoveMember(request)
  if (actorAccountId === accountId) {
    const left = await leave(context, { organizationId, accountId, now })
    return left.outcome === 'left' ? { outcome: 'removed' } : left
  }
  return inTransaction(context.pool, async (tx): Promise<RemoveMemberOutcome> => {
    const standing = await lockedStanding(
      tx,
      context,
      organizationId,
      actorAccountId,
      OrganizationPermissions.manageMembers,
    )
    if (typeof standing === 'string') return { outcome: standing }
    const current = await roleIn(tx, organizationId, accountId)
    if (current === undefined) return { outcome: 'not-found' }
    if (!context.roles.atOrBelow(standing.role, current)) return { outcome: 'rank-exceeded' }
    if (current === OWNER_ROLE && (await ownerCount(tx, organizationId)) <= 1)
      return { outcome: 'last-owner' }
    await tx.delete(membershipsTable).where(ofMember(organizationId, accountId))
    await announce(tx, context, [accountId])
    return { outcome: 'removed' }
  })
}

export async function leave(
  context: OrganizationContext,
  request: LeaveOrganizationRequest,
): Promise<LeaveOrganizationOutcome> {
  const { organizationId, accountId } = validateLeave(request)
  return inTransaction(context.pool, async (tx): Promise<LeaveOrganizationOutcome> => {
    if (!(await lockOrganization(tx, organizationId))) return { outcome: 'not-found' }
    const current = await roleIn(tx, organizationId, accountId)
    if (current === undefined) return { outcome: 'not-found' }
    if (current === OWNER_ROLE && (await ownerCount(tx, organizationId)) <= 1)
      return { outcome: 'last-owner' }
    await tx.delete(membershipsTable).where(ofMember(organizationId, accountId))
    await announce(tx, context, [accountId])
    return { outcome: 'left' }
  })
}
