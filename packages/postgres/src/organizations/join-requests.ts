import type {
  DecideJoinRequestOutcome,
  DecideJoinRequestRequest,
  JoinRequest,
  ListJoinRequestsOutcome,
  ListJoinRequestsRequest,
  RequestToJoinOutcome,
  RequestToJoinRequest,
  WithdrawJoinRequestOutcome,
  WithdrawJoinRequestRequest,
} from '@portcullis/core/organizations'
import {
  MAX_OWN_JOIN_REQUESTS,
  OrganizationPermissions,
  validateDecideJoinRequest,
  validateListJoinRequests,
  validateRequestToJoin,
  validateWithdrawJoinRequest,
} from '@portcullis/core/organizations'
import { and, desc, eq, isNotNull, sql } from 'drizzle-orm'
import { emailAddressesTable } from '../accounts/tables.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { membershipOf } from './records.js'
import {
  announce,
  duplicateOr,
  lockedStanding,
  lockOrganization,
  type OrganizationContext,
  roleIn,
} from './shared.js'
import { type JoinRequestRow, joinRequestsTable, membershipsTable } from './tables.js'

const INVITE = OrganizationPermissions.invite

function joinRequestOf(row: JoinRequestRow): JoinRequest {
  return Object.freeze({
    requestId: row.requestId,
    organizationId: row.organizationId,
    accountId: row.accountId,
    address: row.address,
    createdAt: row.createdAt,
  })
}

/**
 * One transaction under the organization's lock: not a member, no pending request of the account
 * (the unique key would refuse a second one anyway), the address held verified by the account (its row
 * key-share locked, so it cannot be unverified or removed under the request), and the pending count
 * below the limit.
 */
export async function requestToJoin(
  context: OrganizationContext,
  request: RequestToJoinRequest,
): Promise<RequestToJoinOutcome> {
  const { joinRequest, maxPendingPerOrganization } = validateRequestToJoin(request)
  const { organizationId, accountId } = joinRequest
  return inTransaction(context.pool, async (tx): Promise<RequestToJoinOutcome> => {
    if (!(await lockOrganization(tx, organizationId))) return { outcome: 'not-found' }
    if ((await roleIn(tx, organizationId, accountId)) !== undefined) return { outcome: 'already-member' }
    const [existing] = await tx
      .select()
      .from(joinRequestsTable)
      .where(
        and(eq(joinRequestsTable.organizationId, organizationId), eq(joinRequestsTable.accountId, accountId)),
      )
    if (existing !== undefined) return { outcome: 'pending', joinRequest: joinRequestOf(existing) }
    const [holds] = await tx
      .select({ accountId: emailAddressesTable.accountId })
      .from(emailAddressesTable)
      .where(
        and(
          eq(emailAddressesTable.accountId, accountId),
          eq(emailAddressesTable.address, joinRequest.address),
          isNotNull(emailAddressesTable.verifiedAt),
        ),
      )
      .for('key share')
    if (holds === undefined) return { outcome: 'address-mismatch' }
    // Counted through the (organization, account) key, at most limit + 1 rows read.
    const [held] = await tx.select({ count: sql<number>`count(*)::int` }).from(
      tx
        .select({ one: sql`1`.as('one') })
        .from(joinRequestsTable)
        .where(eq(joinRequestsTable.organizationId, organizationId))
        .limit(maxPendingPerOrganization)
        .as('held'),
    )
    if ((held?.count ?? 0) >= maxPendingPerOrganization) return { outcome: 'limit-reached' }
    let row: JoinRequestRow | undefined
    try {
      ;[row] = await tx.insert(joinRequestsTable).values(joinRequest).returning()
    } catch (error) {
      throw duplicateOr(error, 'portcullis_join_requests_pkey', 'a request to join with this id')
    }
    if (row === undefined) throw new Error('insert returned nothing')
    return { outcome: 'requested', joinRequest: joinRequestOf(row) }
  })
}

export async function listJoinRequests(
  context: OrganizationContext,
  request: ListJoinRequestsRequest,
): Promise<ListJoinRequestsOutcome> {
  const { organizationId, actorAccountId, limit } = validateListJoinRequests(request)
  return inStatement(async (): Promise<ListJoinRequestsOutcome> => {
    const role = await roleIn(context.db, organizationId, actorAccountId)
    if (role === undefined) return { outcome: 'not-found' }
    if (!context.roles.allows(role, INVITE)) return { outcome: 'forbidden' }
    const rows = await context.db
      .select()
      .from(joinRequestsTable)
      .where(
        and(
          eq(joinRequestsTable.organizationId, organizationId),
          // An account that joined meanwhile (an invitation) is no longer asking.
          sql`not exists (select 1 from ${membershipsTable} where ${membershipsTable.organizationId} = ${joinRequestsTable.organizationId} and ${membershipsTable.accountId} = ${joinRequestsTable.accountId})`,
        ),
      )
      .orderBy(desc(joinRequestsTable.createdAt), desc(joinRequestsTable.requestId))
      .limit(limit)
    return { outcome: 'listed', joinRequests: Object.freeze(rows.map(joinRequestOf)) }
  })
}

export async function joinRequestsOf(
  context: OrganizationContext,
  accountId: string,
): Promise<readonly JoinRequest[]> {
  return inStatement(async () => {
    const rows = await context.db
      .select()
      .from(joinRequestsTable)
      .where(eq(joinRequestsTable.accountId, accountId))
      .orderBy(desc(joinRequestsTable.createdAt), desc(joinRequestsTable.requestId))
      .limit(MAX_OWN_JOIN_REQUESTS)
    return Object.freeze(rows.map(joinRequestOf))
  })
}

/**
 * One transaction: the organization locked first (as every membership change), the actor's role read
 * under it, then the request row; a decision deletes it, and an approval writes the membership (the
 * store's join role) and its notice. Two decisions of one request queue on the lock: the second finds
 * nothing.
 */
export async function decideJoinRequest(
  context: OrganizationContext,
  joinRole: string,
  request: DecideJoinRequestRequest,
): Promise<DecideJoinRequestOutcome> {
  const { organizationId, requestId, actorAccountId, decision, now } = validateDecideJoinRequest(request)
  return inTransaction(context.pool, async (tx): Promise<DecideJoinRequestOutcome> => {
    const standing = await lockedStanding(tx, context, organizationId, actorAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    const ofThis = and(
      eq(joinRequestsTable.requestId, requestId),
      eq(joinRequestsTable.organizationId, organizationId),
    )
    const [row] = await tx.select().from(joinRequestsTable).where(ofThis).for('update')
    if (row === undefined) return { outcome: 'not-found' }
    if (decision === 'approve' && !context.roles.atOrBelow(standing.role, joinRole)) {
      return { outcome: 'rank-exceeded' }
    }
    await tx.delete(joinRequestsTable).where(ofThis)
    if (decision === 'decline') return { outcome: 'declined', joinRequest: joinRequestOf(row) }
    if ((await roleIn(tx, organizationId, row.accountId)) !== undefined) return { outcome: 'already-member' }
    const [member] = await tx
      .insert(membershipsTable)
      .values({ organizationId, accountId: row.accountId, role: joinRole, joinedAt: now, updatedAt: now })
      .returning()
    if (member === undefined) throw new Error('insert returned nothing')
    await announce(tx, context, [row.accountId])
    return { outcome: 'approved', joinRequest: joinRequestOf(row), membership: membershipOf(member) }
  })
}

export async function withdrawJoinRequest(
  context: OrganizationContext,
  request: WithdrawJoinRequestRequest,
): Promise<WithdrawJoinRequestOutcome> {
  const { organizationId, requestId, accountId } = validateWithdrawJoinRequest(request)
  return inStatement(async (): Promise<WithdrawJoinRequestOutcome> => {
    const removed = await context.db
      .delete(joinRequestsTable)
      .where(
        and(
          eq(joinRequestsTable.requestId, requestId),
          eq(joinRequestsTable.organizationId, organizationId),
          eq(joinRequestsTable.accountId, accountId),
        ),
      )
      .returning({ requestId: joinRequestsTable.requestId })
    return removed.length === 1 ? { outcome: 'withdrawn' } : { outcome: 'not-found' }
  })
}
