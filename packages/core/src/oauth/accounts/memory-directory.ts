import { requireId } from './input.js'
import type { MemoryStoreContext } from './memory-vault.js'
import type { AccountRecord } from './records.js'

/** The account as the OAuth store sees it: its sign-in methods over every provider and the password. */
export async function getAccount(
  context: MemoryStoreContext,
  accountId: string,
): Promise<AccountRecord | null> {
  const id = requireId(accountId, 'accountId')
  if (!context.tables.accounts.has(id)) return null
  return { accountId: id, loginMethods: context.tables.methodCount(id) }
}
