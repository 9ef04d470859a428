import { OWNER_ROLE } from '@portcullis/core/organizations'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Transaction } from '../client/transaction.js'
import { membershipsTable, organizationsTable } from './tables.js'

/**
 * The first organization part of an account's deletion, inside its transaction (the account row is
 * locked), before anything is deleted: the organizations the account owns are locked (in id order) and
 * those it is the only owner of while they have other members are answered (the deletion is refused).
 */
export async function organizationsBlockingDeletion(
  tx: Transaction,
  accountId: string,
): Promise<readonly string[]> {
  const owned = await tx
    .select({ organizationId: membershipsTable.organizationId })
    .from(membershipsTable)
    .where(and(eq(membershipsTable.accountId, accountId), eq(membershipsTable.role, OWNER_ROLE)))
    .orderBy(asc(membershipsTable.organizationId))
  const ids = owned.map((row) => row.organizationId)
  if (ids.length > 0) {
    await tx
      .select({ organizationId: organizationsTable.organizationId })
      .from(organizationsTable)
      .where(inArray(organizationsTable.organizationId, ids))
      .orderBy(asc(organizationsTable.organizationId))
      .for('update')
    const counts = await tx
      .select({
        organizationId: membershipsTable.organizationId,
        owners: sql<number>`count(*) filter (where ${membershipsTable.role} = ${OWNER_ROLE})::int`,
        members: sql<number>`count(*)::int`,
      })
      .from(membershipsTable)
      .where(inArray(membershipsTable.organizationId, ids))
      .groupBy(membershipsTable.organizationId)
    const blocked = counts
      .filter((row) => row.owners <= 1 && row.members > 1)
      .map((row) => row.organizationId)
      .sort()
    return blocked
  }
  return []
}

/**
 * The second part, once nothing blocks: the account's memberships go, and so does every organization
 * it was the only member of (its invitations with it); invitations it sent go with the account row.
 */
export async function deleteAccountMemberships(tx: Transaction, accountId: string): Promise<void> {
  const left = await tx
    .delete(membershipsTable)
    .where(eq(membershipsTable.accountId, accountId))
    .returning({ organizationId: membershipsTable.organizationId })
  const emptied = left.map((row) => row.organizationId)
  if (emptied.length > 0) {
    await tx
      .delete(organizationsTable)
      .where(
        and(
          inArray(organizationsTable.organizationId, emptied),
          sql`not exists (select 1 from ${membershipsTable} where ${membershipsTable.organizationId} = ${organizationsTable.organizationId})`,
        ),
      )
  }
}
