import { ConfigurationError } from '@portcullis/core'
import { OrganizationError, OrganizationErrorCodes, OrganizationRoles } from '@portcullis/core/organizations'
import { and, eq, sql } from 'drizzle-orm'
import { sqlStateOf } from '../client/database-error.js'
import type { Transaction } from '../client/transaction.js'
import { type LocalStoreClient, type LocalStoreContext, storeContext } from '../local-accounts/client.js'
import { notifyRevocations } from '../revocation/channel.js'
import { membershipsTable, organizationsTable } from './tables.js'

export interface OrganizationContext extends LocalStoreContext {
  readonly roles: OrganizationRoles
}

export function organizationContext(
  options: { readonly client: LocalStoreClient; readonly roles?: OrganizationRoles | undefined } | undefined,
): OrganizationContext {
  const roles = options?.roles ?? OrganizationRoles.defaults
  if (!(roles instanceof OrganizationRoles)) {
    throw new ConfigurationError('organizations.invalid_roles', 'roles must be an OrganizationRoles')
  }
  return { ...storeContext(options, 'PostgresOrganizationStore'), roles }
}

export function requireKnownRole(context: OrganizationContext, role: string): void {
  if (!context.roles.has(role)) {
    throw new OrganizationError(OrganizationErrorCodes.invalidInput, 'role is not one of the role catalogue')
  }
}

/** Locks the organization's row (every membership change of it queues here); false when there is none. */
export async function lockOrganization(tx: Transaction, organizationId: string): Promise<boolean> {
  const rows = await tx
    .select({ organizationId: organizationsTable.organizationId })
    .from(organizationsTable)
    .where(eq(organizationsTable.organizationId, organizationId))
    .for('update')
  return rows.length === 1
}

/** The account's role in the organization (in a transaction, or a single statement), or undefined. */
export async function roleIn(
  tx: Pick<Transaction, 'select'>,
  organizationId: string,
  accountId: string,
): Promise<string | undefined> {
  const [row] = await tx
    .select({ role: membershipsTable.role })
    .from(membershipsTable)
    .where(
      and(eq(membershipsTable.organizationId, organizationId), eq(membershipsTable.accountId, accountId)),
    )
  return row?.role
}

export async function ownerCount(tx: Transaction, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ owners: sql<number>`count(*)::int` })
    .from(membershipsTable)
    // The role is a literal, never a parameter: the partial owners index serves the generic plan too.
    .where(and(eq(membershipsTable.organizationId, organizationId), sql`${membershipsTable.role} = 'owner'`))
  return row?.owners ?? 0
}

export type Standing = { readonly role: string } | 'not-found' | 'forbidden'

/**
 * Locks the organization, then reads the actor's role: `not-found` for no organization or no
 * membership (never told apart), `forbidden` without `permission`.
 */
export async function lockedStanding(
  tx: Transaction,
  context: OrganizationContext,
  organizationId: string,
  actorAccountId: string,
  permission?: string,
): Promise<Standing> {
  if (!(await lockOrganization(tx, organizationId))) return 'not-found'
  const role = await roleIn(tx, organizationId, actorAccountId)
  if (role === undefined) return 'not-found'
  if (permission !== undefined && !context.roles.allows(role, permission)) return 'forbidden'
  return { role }
}

/** Publishes `membership` notices for the accounts, in the transaction of the change. */
export function announce(
  tx: Transaction,
  context: OrganizationContext,
  accountIds: readonly string[],
): Promise<void> {
  return notifyRevocations(
    tx,
    context.channel,
    accountIds.map((accountId) => ({ kind: 'membership' as const, accountId })),
  )
}

/** A unique violation of `constraint` becomes `organizations.duplicate`; anything else passes through. */
export function duplicateOr(error: unknown, constraint: string, what: string): unknown {
  let name: unknown
  for (
    let current = error as { constraint?: unknown; cause?: unknown } | undefined, depth = 0;
    depth < 5;
    depth += 1
  ) {
    if (typeof current !== 'object' || current === null) break
    name ??= current.constraint
    current = current.cause as typeof current
  }
  if (sqlStateOf(error) === '23505' && name === constraint) {
    return new OrganizationError(OrganizationErrorCodes.duplicate, `${what} is already stored`)
  }
  return error
}
