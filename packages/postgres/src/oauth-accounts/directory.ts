import type { accounts } from '@portcullis/core/oauth'
import { eq, sql } from 'drizzle-orm'
import { accountsTable, passwordsTable } from '../accounts/tables.js'
import { inStatement } from '../client/transaction.js'
import type { AccountStoreContext } from './context.js'
import { requireId } from './request-input.js'
import { linksTable } from './tables.js'

/** The account and its sign-in-method count (its password and every provider's identities), in one statement. */
export async function getAccount(
  context: AccountStoreContext,
  accountId: string,
): Promise<accounts.AccountRecord | null> {
  const id = requireId(accountId, 'accountId')
  const [row] = await inStatement(() =>
    context.db
      .select({
        loginMethods: sql<string>`(select count(*) from ${passwordsTable} where ${passwordsTable.accountId} = ${id})
          + (select count(*) from ${linksTable} where ${linksTable.accountId} = ${id})`,
      })
      .from(accountsTable)
      .where(eq(accountsTable.accountId, id)),
  )
  return row === undefined ? null : { accountId: id, loginMethods: Number(row.loginMethods) }
}
