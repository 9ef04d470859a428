import {
  type AccountChangeRequest,
  type DeleteAccountOutcome,
  validateAccountChange,
} from '@portcullis/core/accounts'
import { and, eq, inArray, isNotNull } from 'drizzle-orm'
import { apiKeysTable } from '../api-keys/tables.js'
import { isGrant, oauthServerEntriesTable } from '../authorization-server/tables.js'
import { inTransaction } from '../client/transaction.js'
import type { LocalStoreContext } from '../local-accounts/client.js'
import { refreshFamiliesTable, sessionsTable } from '../local-accounts/tables.js'
import { withOutbox } from '../mail/outbox-insert.js'
import { linksTable, vaultTable } from '../oauth-accounts/tables.js'
import { deleteAccountMemberships, organizationsBlockingDeletion } from '../organizations/account-deletion.js'
import { passkeyChallengesTable, passkeysTable } from '../passkeys/tables.js'
import { notifyRevocations } from '../revocation/channel.js'
import { insertSecurityLogEntries } from '../security-log/store.js'
import { stepUpTable } from '../step-up/tables.js'
import { recoveryCodesTable, totpEnrollmentsTable } from '../totp/tables.js'
import { accountsTable, emailAddressesTable, passwordsTable } from './tables.js'

/**
 * Deletes the account and everything of it in ONE transaction. Lock order as everywhere: the account row,
 * then its links (a concurrent sign-in with one of its identities holds the link row while it retains
 * tokens), then a read of their vault rows. While any still holds tokens nothing is deleted
 * (`tokens-retained`): the caller stages their revocation and asks again. Staged revocation retries are
 * kept; refresh tokens go with their families (`on delete cascade`). Its TOTP enrollment, recovery codes,
 * passkeys, pending passkey challenges and email addresses go in the same transaction, and so do its authorization-server
 * grants with every entry (code, token, interaction) of each. Its one-time codes go with the account row
 * (`portcullis_one_time_codes` references it `on delete cascade`); codes sent to an address with no account
 * are no account's and stay until they expire. While it is the only owner of an organization that has
 * other members nothing is deleted (`last-owner`); otherwise its memberships go, with every organization
 * it was the only member of.
 */
export async function deleteAccount(
  context: LocalStoreContext,
  request: AccountChangeRequest,
): Promise<DeleteAccountOutcome> {
  const { accountId, outbox, securityLog } = validateAccountChange(request)
  return inTransaction(context.pool, async (tx): Promise<DeleteAccountOutcome> => {
    const [account] = await tx
      .select({ accountId: accountsTable.accountId })
      .from(accountsTable)
      .where(eq(accountsTable.accountId, accountId))
      .for('update')
    if (account === undefined) return { outcome: 'not-found' }
    const links = await tx
      .select({ providerAccountId: linksTable.providerAccountId })
      .from(linksTable)
      .where(eq(linksTable.accountId, accountId))
      .for('update')
    const ids = links.map((link) => link.providerAccountId)
    const blocked = await organizationsBlockingDeletion(tx, accountId)
    if (ids.length > 0) {
      const retained = await tx
        .select({ providerAccountId: vaultTable.providerAccountId })
        .from(vaultTable)
        .where(and(inArray(vaultTable.providerAccountId, ids), isNotNull(vaultTable.envelope)))
      if (retained.length > 0) {
        return {
          outcome: 'tokens-retained',
          providerAccountIds: Object.freeze(retained.map((row) => row.providerAccountId)),
        }
      }
    }
    if (blocked.length > 0) return { outcome: 'last-owner', organizationIds: Object.freeze([...blocked]) }
    if (ids.length > 0) {
      // Provider account ids are random and never reused, so the version tombstones can go too.
      await tx.delete(vaultTable).where(inArray(vaultTable.providerAccountId, ids))
      await tx.delete(linksTable).where(eq(linksTable.accountId, accountId))
    }
    await tx.delete(passwordsTable).where(eq(passwordsTable.accountId, accountId))
    await tx.delete(emailAddressesTable).where(eq(emailAddressesTable.accountId, accountId))
    await tx.delete(sessionsTable).where(eq(sessionsTable.accountId, accountId))
    await tx.delete(refreshFamiliesTable).where(eq(refreshFamiliesTable.accountId, accountId))
    await tx.delete(stepUpTable).where(eq(stepUpTable.accountId, accountId))
    const keys = await tx
      .delete(apiKeysTable)
      .where(and(eq(apiKeysTable.ownerKind, 'user'), eq(apiKeysTable.ownerId, accountId)))
      .returning({ keyId: apiKeysTable.keyId })
    await tx.delete(recoveryCodesTable).where(eq(recoveryCodesTable.accountId, accountId))
    await tx.delete(totpEnrollmentsTable).where(eq(totpEnrollmentsTable.accountId, accountId))
    await tx.delete(passkeysTable).where(eq(passkeysTable.accountId, accountId))
    await tx.delete(passkeyChallengesTable).where(eq(passkeyChallengesTable.accountId, accountId))
    const grants = await tx
      .delete(oauthServerEntriesTable)
      .where(and(isGrant, eq(oauthServerEntriesTable.accountId, accountId)))
      .returning({ grantId: oauthServerEntriesTable.id })
    const grantIds = grants.map((grant) => grant.grantId)
    if (grantIds.length > 0) {
      await tx.delete(oauthServerEntriesTable).where(inArray(oauthServerEntriesTable.grantId, grantIds))
    }
    await deleteAccountMemberships(tx, accountId)
    await tx.delete(accountsTable).where(eq(accountsTable.accountId, accountId))
    // Every instance drops the account's epoch and sessions, its keys from the verified-lookup caches,
    // and refuses the access tokens of its authorization-server grants.
    await notifyRevocations(tx, context.channel, [
      { kind: 'account', accountId },
      ...keys.map((key) => ({ kind: 'api-key' as const, keyId: key.keyId })),
      ...grantIds.map((grantId) => ({ kind: 'grant' as const, grantId })),
    ])
    await insertSecurityLogEntries(tx, securityLog)
    return withOutbox(tx, outbox, { outcome: 'deleted' } as const)
  })
}
