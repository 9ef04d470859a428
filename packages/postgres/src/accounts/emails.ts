import {
  type Account,
  type AddEmailAddressOutcome,
  accountRecord,
  type EmailAddress,
  type EmailAddressRequest,
  emailAddressList,
  emailAddressRecord,
  MAX_EMAIL_ADDRESSES_PER_ACCOUNT,
  type RemoveEmailAddressOutcome,
  type RemoveEmailAddressRequest,
  removalLeavesNoWayIn,
  requireNormalizedEmailAddress,
  type SetPrimaryEmailAddressOutcome,
  type VerifyEmailAddressOutcome,
  type VerifyEmailAddressRequest,
  validateAccountId,
  validateEmailAddressRequest,
  validateRemoveEmailAddress,
  validateVerifyEmailAddress,
} from '@portcullis/core/accounts'
import { PortcullisError } from '@portcullis/core/errors'
import { and, asc, eq, isNotNull, sql } from 'drizzle-orm'
import { inStatement, inTransaction, type Transaction } from '../client/transaction.js'
import type { LocalStoreContext } from '../local-accounts/client.js'
import { withOutbox } from '../mail/outbox-insert.js'
import { bumpEpoch, lockAndCountMethods } from './methods.js'
import { accountsTable, type EmailAddressRow, emailAddressesTable, passwordsTable } from './tables.js'

// The email addresses of `PostgresAccountStore`. Every change is one transaction that locks the account
// row first (the lock order of every account change), then the account's address rows. A verified
// address is claimed by `INSERT ... ON CONFLICT (address) WHERE verified_at IS NOT NULL DO NOTHING` on
// the partial unique index: of two transactions verifying one address for two accounts, the second waits
// for the first and then inserts nothing, so exactly one wins on every instance.

/** Rolls a verification back when another account holds the address verified. */
class AddressTaken extends PortcullisError {
  constructor() {
    super('email.address_taken', 'conflict', 'the address is verified by another account')
  }
}

const table = emailAddressesTable

const toRecord = (row: EmailAddressRow): EmailAddress =>
  emailAddressRecord({
    accountId: row.accountId,
    address: row.address,
    verified: row.verifiedAt !== null,
    primary: row.isPrimary,
    createdAt: row.createdAt,
    verifiedAt: row.verifiedAt,
  })

async function lockAccount(tx: Transaction, accountId: string): Promise<Account | undefined> {
  const [row] = await tx
    .select()
    .from(accountsTable)
    .where(eq(accountsTable.accountId, accountId))
    .for('update')
  return row === undefined ? undefined : accountRecord(row)
}

async function lockRows(tx: Transaction, accountId: string): Promise<EmailAddressRow[]> {
  return tx
    .select()
    .from(table)
    .where(eq(table.accountId, accountId))
    .orderBy(asc(table.address))
    .for('update')
}

export async function listEmailAddresses(
  context: LocalStoreContext,
  accountId: string,
): Promise<readonly EmailAddress[]> {
  const id = validateAccountId(accountId)
  const rows = await inStatement(() => context.db.select().from(table).where(eq(table.accountId, id)))
  return emailAddressList(rows.map(toRecord))
}

export async function findAccountByVerifiedEmail(
  context: LocalStoreContext,
  address: string,
): Promise<Account | null> {
  const normalized = requireNormalizedEmailAddress(address)
  const [row] = await inStatement(() =>
    context.db
      .select({ account: accountsTable })
      .from(table)
      .innerJoin(accountsTable, eq(accountsTable.accountId, table.accountId))
      .where(and(eq(table.address, normalized), isNotNull(table.verifiedAt))),
  )
  return row === undefined ? null : accountRecord(row.account)
}

export async function addEmailAddress(
  context: LocalStoreContext,
  request: EmailAddressRequest,
): Promise<AddEmailAddressOutcome> {
  const { accountId, address, now, outbox } = validateEmailAddressRequest(request)
  return inTransaction(context.pool, async (tx): Promise<AddEmailAddressOutcome> => {
    if ((await lockAccount(tx, accountId)) === undefined) return { outcome: 'not-found' }
    const rows = await lockRows(tx, accountId)
    const existing = rows.find((row) => row.address === address)
    if (existing !== undefined) return { outcome: 'exists', address: toRecord(existing) }
    const [owner] = await tx
      .select({ accountId: table.accountId })
      .from(table)
      .where(and(eq(table.address, address), isNotNull(table.verifiedAt)))
    if (owner !== undefined) return { outcome: 'verified-elsewhere' }
    if (rows.length >= MAX_EMAIL_ADDRESSES_PER_ACCOUNT) return { outcome: 'too-many' }
    const [row] = await tx
      .insert(table)
      .values({ accountId, address, verifiedAt: null, isPrimary: rows.length === 0, createdAt: now })
      .returning()
    if (row === undefined) throw new Error('the inserted address was not returned')
    return withOutbox(tx, outbox, { outcome: 'added', address: toRecord(row) })
  })
}

/** Moves the primary flag to `address` (two statements: the unique index holds after each). */
async function movePrimary(tx: Transaction, accountId: string, address: string): Promise<void> {
  await tx
    .update(table)
    .set({ isPrimary: false })
    .where(and(eq(table.accountId, accountId), eq(table.isPrimary, true)))
  await tx
    .update(table)
    .set({ isPrimary: true })
    .where(and(eq(table.accountId, accountId), eq(table.address, address)))
}

export async function verifyEmailAddress(
  context: LocalStoreContext,
  request: VerifyEmailAddressRequest,
): Promise<VerifyEmailAddressOutcome> {
  const { accountId, address, now, makePrimary, outbox } = validateVerifyEmailAddress(request)
  try {
    return await inTransaction(context.pool, async (tx): Promise<VerifyEmailAddressOutcome> => {
      const account = await lockAccount(tx, accountId)
      if (account === undefined) return { outcome: 'not-found' }
      const rows = await lockRows(tx, accountId)
      let row = rows.find((each) => each.address === address)
      if (row === undefined) return { outcome: 'not-found' }
      if (row.verifiedAt === null) {
        // The claim: a verified row for this address, unless one exists or a concurrent one commits first.
        await tx.delete(table).where(and(eq(table.accountId, accountId), eq(table.address, address)))
        const [claimed] = await tx
          .insert(table)
          .values({ ...row, verifiedAt: now })
          .onConflictDoNothing({ target: table.address, where: sql`verified_at is not null` })
          .returning()
        if (claimed === undefined) throw new AddressTaken()
        row = claimed
      }
      let securityEpoch = account.securityEpoch
      if (makePrimary && !row.isPrimary) {
        await movePrimary(tx, accountId, address)
        row = { ...row, isPrimary: true }
        securityEpoch = await bumpEpoch(tx, context.channel, accountId, now)
      }
      return withOutbox(tx, outbox, { outcome: 'verified', address: toRecord(row), securityEpoch })
    })
  } catch (error) {
    if (error instanceof AddressTaken) return { outcome: 'taken' }
    throw error
  }
}

export async function setPrimaryEmailAddress(
  context: LocalStoreContext,
  request: EmailAddressRequest,
): Promise<SetPrimaryEmailAddressOutcome> {
  const { accountId, address, now, outbox } = validateEmailAddressRequest(request)
  const set = (securityEpoch: number) => ({ outcome: 'set', securityEpoch }) as const
  return inTransaction(context.pool, async (tx): Promise<SetPrimaryEmailAddressOutcome> => {
    const account = await lockAccount(tx, accountId)
    if (account === undefined) return { outcome: 'not-found' }
    const row = (await lockRows(tx, accountId)).find((each) => each.address === address)
    if (row === undefined) return { outcome: 'not-found' }
    if (row.verifiedAt === null) return { outcome: 'unverified' }
    if (row.isPrimary) return withOutbox(tx, outbox, set(account.securityEpoch))
    await movePrimary(tx, accountId, address)
    return withOutbox(tx, outbox, set(await bumpEpoch(tx, context.channel, accountId, now)))
  })
}

export async function removeEmailAddress(
  context: LocalStoreContext,
  request: RemoveEmailAddressRequest,
): Promise<RemoveEmailAddressOutcome> {
  const { accountId, address, now, signInWith, outbox } = validateRemoveEmailAddress(request)
  const removed = (securityEpoch: number) => ({ outcome: 'removed', securityEpoch }) as const
  return inTransaction(context.pool, async (tx): Promise<RemoveEmailAddressOutcome> => {
    // Locks the account row and counts its methods under that lock, as every method removal does.
    const methods = await lockAndCountMethods(tx, accountId)
    if (methods === null) return { outcome: 'not-found' }
    const rows = await lockRows(tx, accountId)
    const row = rows.find((each) => each.address === address)
    if (row === undefined) return { outcome: 'not-found' }
    if (row.isPrimary && rows.length > 1) return { outcome: 'primary' }
    const [password] = await tx
      .select({ accountId: passwordsTable.accountId })
      .from(passwordsTable)
      .where(eq(passwordsTable.accountId, accountId))
    const hasPassword = password !== undefined
    const counts = {
      others: methods - (hasPassword ? 1 : 0),
      hasPassword,
      verifiedBefore: rows.filter((each) => each.verifiedAt !== null).length,
    }
    const verified = row.verifiedAt !== null
    if (removalLeavesNoWayIn(signInWith, counts, verified)) return { outcome: 'final-method' }
    await tx.delete(table).where(and(eq(table.accountId, accountId), eq(table.address, address)))
    if (!verified) {
      const [account] = await tx
        .select({ securityEpoch: accountsTable.securityEpoch })
        .from(accountsTable)
        .where(eq(accountsTable.accountId, accountId))
      return withOutbox(tx, outbox, removed(account?.securityEpoch ?? 1))
    }
    return withOutbox(tx, outbox, removed(await bumpEpoch(tx, context.channel, accountId, now)))
  })
}
