import type { PasskeyAccountRequest, RemovePasskeyOutcome } from '@portcullis/core/passkeys'
import { and, eq } from 'drizzle-orm'
import { lockAndCountMethods } from '../accounts/methods.js'
import type { Transaction } from '../client/transaction.js'
import { passkeysTable as passkeys } from './tables.js'

/**
 * Removes one of the account's passkeys inside a transaction. The account row is locked and its methods
 * counted first (as every method removal does), so a usable passkey that is the account's last way to
 * sign in stays (`final-method`), and two removals of the last two methods never both succeed. A passkey
 * of an account id the account table does not know (a store used on its own) is simply removed.
 */
export async function removePasskeyMethod(
  tx: Transaction,
  { accountId, credentialId }: PasskeyAccountRequest,
): Promise<RemovePasskeyOutcome> {
  const methods = await lockAndCountMethods(tx, accountId)
  const [stored] = await tx
    .select({ suspendedAt: passkeys.suspendedAt })
    .from(passkeys)
    .where(and(eq(passkeys.credentialId, credentialId), eq(passkeys.accountId, accountId)))
    .for('update')
  if (stored === undefined) return 'not-found'
  if (methods !== null && stored.suspendedAt === null && methods <= 1) return 'final-method'
  await tx.delete(passkeys).where(eq(passkeys.credentialId, credentialId))
  return 'removed'
}
