import type {
  AccountOrganization,
  CreateOrganizationOutcome,
  CreateOrganizationRequest,
  DeleteOrganizationOutcome,
  DeleteOrganizationRequest,
  Organization,
  RenameOrganizationOutcome,
  RenameOrganizationRequest,
} from '@portcullis/core/organizations'
import {
  OrganizationPermissions,
  OWNER_ROLE,
  validateCreateOrganization,
  validateDeleteOrganization,
  validateRenameOrganization,
} from '@portcullis/core/organizations'
import { asc, eq } from 'drizzle-orm'
import { accountsTable } from '../accounts/tables.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { membershipOf, organizationOf } from './records.js'
import { announce, duplicateOr, lockedStanding, type OrganizationContext } from './shared.js'
import { membershipsTable, organizationsTable } from './tables.js'

export async function createOrganization(
  context: OrganizationContext,
  request: CreateOrganizationRequest,
): Promise<CreateOrganizationOutcome> {
  const { organizationId, name, ownerAccountId, now } = validateCreateOrganization(request)
  return inTransaction(context.pool, async (tx): Promise<CreateOrganizationOutcome> => {
    const [account] = await tx
      .select({ accountId: accountsTable.accountId })
      .from(accountsTable)
      .where(eq(accountsTable.accountId, ownerAccountId))
      .for('key share')
    if (account === undefined) return { outcome: 'account-not-found' }
    let created: typeof organizationsTable.$inferSelect | undefined
    try {
      ;[created] = await tx
        .insert(organizationsTable)
        .values({ organizationId, name, createdAt: now, updatedAt: now })
        .returning()
    } catch (error) {
      throw duplicateOr(error, 'portcullis_organizations_pkey', 'an organization with this id')
    }
    const [member] = await tx
      .insert(membershipsTable)
      .values({ organizationId, accountId: ownerAccountId, role: OWNER_ROLE, joinedAt: now, updatedAt: now })
      .returning()
    if (created === undefined || member === undefined) throw new Error('insert returned nothing')
    await announce(tx, context, [ownerAccountId])
    return { outcome: 'created', organization: organizationOf(created), membership: membershipOf(member) }
  })
}

export async function getOrganization(
  context: OrganizationContext,
  organizationId: string,
): Promise<Organization | null> {
  const [row] = await inStatement(() =>
    context.db.select().from(organizationsTable).where(eq(organizationsTable.organizationId, organizationId)),
  )
  return row === undefined ? null : organizationOf(row)
}

export async function organizationsOf(
  context: OrganizationContext,
  accountId: string,
): Promise<readonly AccountOrganization[]> {
  const rows = await inStatement(() =>
    context.db
      .select({ membership: membershipsTable, organizationName: organizationsTable.name })
      .from(membershipsTable)
      .innerJoin(organizationsTable, eq(organizationsTable.organizationId, membershipsTable.organizationId))
      .where(eq(membershipsTable.accountId, accountId))
      .orderBy(asc(membershipsTable.organizationId)),
  )
  return Object.freeze(
    rows.map((row) =>
      Object.freeze({ ...membershipOf(row.membership), organizationName: row.organizationName }),
    ),
  )
}

export async function renameOrganization(
  context: OrganizationContext,
  request: RenameOrganizationRequest,
): Promise<RenameOrganizationOutcome> {
  const { organizationId, actorAccountId, name, now } = validateRenameOrganization(request)
  return inTransaction(context.pool, async (tx): Promise<RenameOrganizationOutcome> => {
    const standing = await lockedStanding(
      tx,
      context,
      organizationId,
      actorAccountId,
      OrganizationPermissions.rename,
    )
    if (typeof standing === 'string') return { outcome: standing }
    const [row] = await tx
      .update(organizationsTable)
      .set({ name, updatedAt: now })
      .where(eq(organizationsTable.organizationId, organizationId))
      .returning()
    return row === undefined
      ? { outcome: 'not-found' }
      : { outcome: 'renamed', organization: organizationOf(row) }
  })
}

export async function deleteOrganization(
  context: OrganizationContext,
  request: DeleteOrganizationRequest,
): Promise<DeleteOrganizationOutcome> {
  const { organizationId, actorAccountId } = validateDeleteOrganization(request)
  return inTransaction(context.pool, async (tx): Promise<DeleteOrganizationOutcome> => {
    const standing = await lockedStanding(
      tx,
      context,
      organizationId,
      actorAccountId,
      OrganizationPermissions.delete,
    )
    if (typeof standing === 'string') return { outcome: standing }
    const members = await tx
      .delete(membershipsTable)
      .where(eq(membershipsTable.organizationId, organizationId))
      .returning({ accountId: membershipsTable.accountId })
    // Its invitations go with it (on delete cascade).
    await tx.delete(organizationsTable).where(eq(organizationsTable.organizationId, organizationId))
    const memberAccountIds = members.map((member) => member.accountId).sort()
    await announce(tx, context, memberAccountIds)
    return { outcome: 'deleted', memberAccountIds: Object.freeze(memberAccountIds) }
  })
}
