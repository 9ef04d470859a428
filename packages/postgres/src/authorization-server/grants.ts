import {
  grantSummaryOf,
  type OAuthGrantStatus,
  type OAuthGrantSummary,
} from '@portcullis/core/authorization-server'
import { and, asc, desc, eq, gt, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { accountsTable } from '../accounts/tables.js'
import type { Transaction } from '../client/transaction.js'
import { notifyRevocations } from '../revocation/channel.js'
import { oauthServerEntriesTable as entries, isGrant } from './tables.js'

/** The entry has not expired at `now`. */
export function live(now: Date): SQL | undefined {
  return or(isNull(entries.expiresAt), gt(entries.expiresAt, now))
}

/** The grant's account exists, is active and still has the epoch the grant recorded (join condition). */
const accountKeepsGrant = and(
  eq(accountsTable.accountId, entries.accountId),
  eq(accountsTable.status, 'active'),
  eq(accountsTable.securityEpoch, entries.securityEpoch),
)

/** The grant when it is active at `now`: ONE statement, two primary-key lookups. */
export async function activeGrantOf(
  db: NodePgDatabase,
  grantId: string,
  now: Date,
): Promise<OAuthGrantStatus | undefined> {
  const [row] = await db
    .select({ accountId: entries.accountId, clientId: entries.clientId })
    .from(entries)
    .innerJoin(accountsTable, accountKeepsGrant)
    .where(and(isGrant, eq(entries.id, grantId), isNotNull(entries.clientId), live(now)))
  if (row?.accountId == null || row.clientId == null) return undefined
  return { grantId, accountId: row.accountId, clientId: row.clientId }
}

/** The account's active grants at `now`, newest first, ties by grant id in code-point order. */
export async function activeGrantsOf(
  db: NodePgDatabase,
  accountId: string,
  now: Date,
): Promise<readonly OAuthGrantSummary[]> {
  const rows = await db
    .select({
      id: entries.id,
      payload: entries.payload,
      expiresAt: entries.expiresAt,
      createdAt: entries.createdAt,
      lastUsedAt: entries.lastUsedAt,
    })
    .from(entries)
    .innerJoin(accountsTable, accountKeepsGrant)
    .where(and(isGrant, eq(entries.accountId, accountId), live(now)))
    .orderBy(desc(entries.createdAt), asc(sql`${entries.id} collate "C"`))
  return rows.map((row) =>
    grantSummaryOf(
      { model: 'Grant', id: row.id, payload: row.payload, expiresAt: row.expiresAt ?? undefined },
      row.createdAt,
      row.lastUsedAt ?? undefined,
    ),
  )
}

/** Deletes every entry of the grant (the grant included) and sends its notice, inside `tx`. */
export async function endGrant(tx: Transaction, channel: string, grantId: string): Promise<void> {
  await tx.delete(entries).where(eq(entries.grantId, grantId))
  await notifyRevocations(tx, channel, [{ kind: 'grant', grantId }])
}
