import type { accounts } from '@portcullis/core/oauth'
import { eq, sql } from 'drizzle-orm'
import { inStatement, inTransaction } from '../client/transaction.js'
import type { AccountStoreContext } from './context.js'
import { invalidInput, requireBoundedInteger, requireId } from './request-input.js'
import { accountsTable } from './tables.js'

type Directory = accounts.OAuthAccountDirectory

/** Most non-provider login methods one account may hold (the memory store's limit too). */
export const MAX_LOGIN_METHODS = 1000

export async function registerAccount(
  context: AccountStoreContext,
  request: Parameters<Directory['registerAccount']>[0],
): Promise<boolean> {
  const accountId = requireId(request?.accountId, 'accountId')
  const otherLoginMethods = requireBoundedInteger(request.loginMethods, 'loginMethods', 0, MAX_LOGIN_METHODS)
  const inserted = await inStatement(() =>
    context.db
      .insert(accountsTable)
      .values({ accountId, otherLoginMethods, providerLinks: 0 })
      .onConflictDoNothing({ target: accountsTable.accountId })
      .returning({ accountId: accountsTable.accountId }),
  )
  return inserted.length === 1
}

export async function getAccount(
  context: AccountStoreContext,
  accountId: string,
): Promise<accounts.AccountRecord | null> {
  const id = requireId(accountId, 'accountId')
  const [row] = await inStatement(() =>
    context.db
      .select({
        loginMethods: sql<number>`${accountsTable.otherLoginMethods} + ${accountsTable.providerLinks}`,
      })
      .from(accountsTable)
      .where(eq(accountsTable.accountId, id)),
  )
  return row === undefined ? null : { accountId: id, loginMethods: Number(row.loginMethods) }
}

/** Non-provider methods only: removing one the account does not have is `not-found`. */
export async function adjustLoginMethods(
  context: AccountStoreContext,
  request: Parameters<Directory['adjustLoginMethods']>[0],
): Promise<accounts.AdjustLoginMethodsOutcome> {
  const accountId = requireId(request?.accountId, 'accountId')
  if (request.delta !== 1 && request.delta !== -1) throw invalidInput('delta must be 1 or -1')
  const delta = request.delta
  return inTransaction(context.pool, async (tx): Promise<accounts.AdjustLoginMethodsOutcome> => {
    const [row] = await tx
      .select()
      .from(accountsTable)
      .where(eq(accountsTable.accountId, accountId))
      .for('update')
    if (row === undefined || (delta === -1 && row.otherLoginMethods === 0)) return { status: 'not-found' }
    if (delta === -1 && row.otherLoginMethods + row.providerLinks <= 1) return { status: 'final-method' }
    if (delta === 1 && row.otherLoginMethods >= MAX_LOGIN_METHODS)
      throw invalidInput('too many login methods')
    const otherLoginMethods = row.otherLoginMethods + delta
    await tx.update(accountsTable).set({ otherLoginMethods }).where(eq(accountsTable.accountId, accountId))
    return { status: 'adjusted', loginMethods: otherLoginMethods + row.providerLinks }
  })
}
