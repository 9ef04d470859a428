import { eq, sql } from 'drizzle-orm'
import type { Transaction } from '../client/transaction.js'
import { linksTable } from '../oauth-accounts/tables.js'
import { passkeysTable } from '../passkeys/tables.js'
import { notifyRevocations } from '../revocation/channel.js'
import { accountsTable, passwordsTable } from './tables.js'

/**
 * Locks the account row (`FOR UPDATE`) and counts its sign-in methods: its password, its provider
 * identities and its usable (not suspended) passkeys. Every removal of a method runs this first, so two removals of an account's last two methods
 * queue on the account row and the second sees one method left. Null for an unknown account.
 */
export async function lockAndCountMethods(tx: Transaction, accountId: string): Promise<number | null> {
  const [account] = await tx
    .select({ accountId: accountsTable.accountId })
    .from(accountsTable)
    .where(eq(accountsTable.accountId, accountId))
    .for('update')
  if (account === undefined) return null
  const [row] = await tx
    .execute<{ methods: string }>(sql`select
      (select count(*) from ${passwordsTable} where ${passwordsTable.accountId} = ${accountId})
    + (select count(*) from ${linksTable} where ${linksTable.accountId} = ${accountId})
    + (select count(*) from ${passkeysTable}
        where ${passkeysTable.accountId} = ${accountId} and ${passkeysTable.suspendedAt} is null) as methods`)
    .then((result) => result.rows)
  return Number(row?.methods ?? 0)
}

/**
 * Moves the account's security epoch inside a transaction and sends the account's revocation notice in
 * it (delivered only if the transaction commits); the new epoch.
 */
export async function bumpEpoch(
  tx: Transaction,
  channel: string,
  accountId: string,
  now: Date,
): Promise<number> {
  const [row] = await tx
    .update(accountsTable)
    .set({ securityEpoch: sql`${accountsTable.securityEpoch} + 1`, updatedAt: now })
    .where(eq(accountsTable.accountId, accountId))
    .returning({ securityEpoch: accountsTable.securityEpoch })
  await notifyRevocations(tx, channel, [{ kind: 'account', accountId }])
  return row?.securityEpoch ?? 1
}
