import {
  type AccountChangeRequest,
  type AddPasswordOutcome,
  type AddPasswordRequest,
  type CreateAccountOutcome,
  type CreateAccountRequest,
  type FindPasswordQuery,
  type IssueInviteRequest,
  type PasswordRecord,
  passwordRecord,
  type RemoveSignInMethodOutcome,
  type SetPasswordRequest,
  validateAccountChange,
  validateAddPassword,
  validateCreateAccount,
  validateFindPassword,
  validateIssueInvite,
  validateSetPassword,
} from '@portcullis/core/accounts'
import { OneTimeCodeError } from '@portcullis/core/codes'
import { PortcullisError } from '@portcullis/core/errors'
import { and, eq, isNotNull, sql } from 'drizzle-orm'
import { inStatement, inTransaction } from '../client/transaction.js'
import { insertIssuedCode } from '../codes/store.js'
import { duplicateOr, type LocalStoreContext } from '../local-accounts/client.js'
import { withOutbox } from '../mail/outbox-insert.js'
import { notifyRevocations } from '../revocation/channel.js'
import { insertSecurityLogEntries } from '../security-log/store.js'
import { bumpEpoch, lockAndCountMethods } from './methods.js'
import {
  type AccountRow,
  accountsTable,
  emailAddressesTable,
  invitesTable,
  type PasswordRow,
  passwordsTable,
} from './tables.js'

/** Rolls a sign-up back when another account holds its address verified. */
class AddressTaken extends PortcullisError {
  constructor() {
    super('email.address_taken', 'conflict', 'the address is verified by another account')
  }
}

/** Rolls a sign-up back when the username is taken (a Portcullis error, so the connection is kept). */
class UsernameTaken extends PortcullisError {
  constructor() {
    super('local.username_taken', 'conflict', 'the username is taken')
  }
}

function toRecord(account: AccountRow, password: PasswordRow): PasswordRecord {
  return passwordRecord({
    accountId: account.accountId,
    username: password.username,
    passwordHash: password.passwordHash,
    securityEpoch: account.securityEpoch,
    status: account.status,
    createdAt: account.createdAt,
    updatedAt: password.updatedAt,
    passwordChangedAt: password.passwordChangedAt,
  })
}

/**
 * Password sign-up in one transaction: the invite row is locked (`SELECT ... FOR UPDATE`) and checked
 * first, the account row is inserted, then the password with `ON CONFLICT (username) DO NOTHING` (a taken
 * username rolls the account back), and only then is the invite consumed: concurrent sign-ups meet on the
 * username's unique key and on the invite's row lock, one winner each, and a taken username never burns
 * the invite.
 */
export async function createAccount(
  context: LocalStoreContext,
  request: CreateAccountRequest,
): Promise<CreateAccountOutcome> {
  const { accountId, username, passwordHash, now, inviteDigest, emailAddress, code, outbox } =
    validateCreateAccount(request)
  try {
    return await inTransaction(context.pool, async (tx): Promise<CreateAccountOutcome> => {
      if (inviteDigest !== undefined) {
        const [invite] = await tx
          .select({ expiresAt: invitesTable.expiresAt, consumedAt: invitesTable.consumedAt })
          .from(invitesTable)
          .where(eq(invitesTable.digest, inviteDigest))
          .for('update')
        if (
          invite === undefined ||
          invite.consumedAt !== null ||
          invite.expiresAt.getTime() <= now.getTime()
        ) {
          return { outcome: 'invite-invalid' }
        }
      }
      const [account] = await tx
        .insert(accountsTable)
        .values({ accountId, securityEpoch: 1, status: 'active', createdAt: now, updatedAt: now })
        .returning()
      const [password] = await tx
        .insert(passwordsTable)
        .values({ accountId, username, passwordHash, createdAt: now, updatedAt: now, passwordChangedAt: now })
        .onConflictDoNothing({ target: passwordsTable.username })
        .returning()
      // Undo the account row: the transaction rolls back and the outcome is answered below.
      if (password === undefined || account === undefined) throw new UsernameTaken()
      if (emailAddress !== undefined) {
        // An unverified row blocks nobody; a verified one of another account refuses the sign-up (a
        // verification committing after this read finds this row unverified, and wins alone).
        const [owner] = await tx
          .select({ accountId: emailAddressesTable.accountId })
          .from(emailAddressesTable)
          .where(
            and(eq(emailAddressesTable.address, emailAddress), isNotNull(emailAddressesTable.verifiedAt)),
          )
        if (owner !== undefined) throw new AddressTaken()
        await tx
          .insert(emailAddressesTable)
          .values({ accountId, address: emailAddress, verifiedAt: null, isPrimary: true, createdAt: now })
      }
      if (code !== undefined) await insertIssuedCode(tx, code)
      if (inviteDigest !== undefined) {
        await tx
          .update(invitesTable)
          .set({ consumedAt: now, consumedBy: accountId })
          .where(eq(invitesTable.digest, inviteDigest))
      }
      return withOutbox(tx, outbox, { outcome: 'created', account: toRecord(account, password) })
    })
  } catch (error) {
    if (error instanceof UsernameTaken) return { outcome: 'username-taken' }
    if (error instanceof AddressTaken) return { outcome: 'address-taken' }
    if (error instanceof OneTimeCodeError) throw error
    throw duplicateOr(error, 'an account with this id')
  }
}

export async function findPassword(
  context: LocalStoreContext,
  query: FindPasswordQuery,
): Promise<PasswordRecord | null> {
  const key = validateFindPassword(query)
  if ('verifiedEmail' in key) {
    // Through the partial unique index on verified addresses: an unverified one finds nobody.
    const [row] = await inStatement(() =>
      context.db
        .select({ account: accountsTable, password: passwordsTable })
        .from(emailAddressesTable)
        .innerJoin(passwordsTable, eq(passwordsTable.accountId, emailAddressesTable.accountId))
        .innerJoin(accountsTable, eq(accountsTable.accountId, emailAddressesTable.accountId))
        .where(
          and(eq(emailAddressesTable.address, key.verifiedEmail), isNotNull(emailAddressesTable.verifiedAt)),
        ),
    )
    return row === undefined ? null : toRecord(row.account, row.password)
  }
  const [row] = await inStatement(() =>
    context.db
      .select({ account: accountsTable, password: passwordsTable })
      .from(passwordsTable)
      .innerJoin(accountsTable, eq(accountsTable.accountId, passwordsTable.accountId))
      .where(
        'username' in key
          ? eq(passwordsTable.username, key.username)
          : eq(passwordsTable.accountId, key.accountId),
      ),
  )
  return row === undefined ? null : toRecord(row.account, row.password)
}

/**
 * One transaction: a conditional UPDATE of the password row (on `expectedPasswordHash` when given), and
 * the epoch increment (`security_epoch = security_epoch + 1`) with it when asked, so no concurrent
 * increment is lost and a rehash loses safely to a concurrent change.
 */
export async function setPassword(
  context: LocalStoreContext,
  request: SetPasswordRequest,
): Promise<PasswordRecord | null> {
  const change = validateSetPassword(request)
  return inTransaction(context.pool, async (tx) => {
    const [password] = await tx
      .update(passwordsTable)
      .set({
        passwordHash: change.passwordHash,
        updatedAt: change.now,
        ...(change.rehash ? {} : { passwordChangedAt: change.now }),
      })
      .where(
        and(
          eq(passwordsTable.accountId, change.accountId),
          change.expectedPasswordHash === undefined
            ? undefined
            : eq(passwordsTable.passwordHash, change.expectedPasswordHash),
        ),
      )
      .returning()
    if (password === undefined) return null
    const [account] = await tx
      .update(accountsTable)
      .set(
        change.bumpEpoch
          ? { securityEpoch: sql`${accountsTable.securityEpoch} + 1`, updatedAt: change.now }
          : { securityEpoch: sql`${accountsTable.securityEpoch}` },
      )
      .where(eq(accountsTable.accountId, change.accountId))
      .returning()
    if (account === undefined) return null
    if (change.bumpEpoch) {
      await notifyRevocations(tx, context.channel, [{ kind: 'account', accountId: change.accountId }])
    }
    return withOutbox(tx, change.outbox, toRecord(account, password))
  })
}

/** Adds the password method to an account without one, under the account's row lock. */
export async function addPassword(
  context: LocalStoreContext,
  request: AddPasswordRequest,
): Promise<AddPasswordOutcome> {
  const { accountId, username, passwordHash, now, outbox } = validateAddPassword(request)
  return inTransaction(context.pool, async (tx): Promise<AddPasswordOutcome> => {
    const [account] = await tx
      .select()
      .from(accountsTable)
      .where(eq(accountsTable.accountId, accountId))
      .for('update')
    if (account === undefined) return { outcome: 'not-found' }
    const [existing] = await tx
      .select({ accountId: passwordsTable.accountId })
      .from(passwordsTable)
      .where(eq(passwordsTable.accountId, accountId))
    if (existing !== undefined) return { outcome: 'password-exists' }
    const [password] = await tx
      .insert(passwordsTable)
      .values({ accountId, username, passwordHash, createdAt: now, updatedAt: now, passwordChangedAt: now })
      .onConflictDoNothing({ target: passwordsTable.username })
      .returning()
    if (password === undefined) return { outcome: 'username-taken' }
    return withOutbox(tx, outbox, { outcome: 'added', account: toRecord(account, password) })
  })
}

/** Removes the password method and moves the epoch, unless it is the account's last sign-in method. */
export async function removePassword(
  context: LocalStoreContext,
  request: AccountChangeRequest,
): Promise<RemoveSignInMethodOutcome> {
  const { accountId, now, outbox, securityLog } = validateAccountChange(request)
  return inTransaction(context.pool, async (tx): Promise<RemoveSignInMethodOutcome> => {
    const methods = await lockAndCountMethods(tx, accountId)
    if (methods === null) return { outcome: 'not-found' }
    const [password] = await tx
      .select({ accountId: passwordsTable.accountId })
      .from(passwordsTable)
      .where(eq(passwordsTable.accountId, accountId))
    if (password === undefined) return { outcome: 'not-found' }
    if (methods <= 1) return { outcome: 'final-method' }
    await tx.delete(passwordsTable).where(eq(passwordsTable.accountId, accountId))
    const securityEpoch = await bumpEpoch(tx, context.channel, accountId, now)
    await insertSecurityLogEntries(tx, securityLog)
    return withOutbox(tx, outbox, { outcome: 'removed', securityEpoch })
  })
}

export async function issueInvite(context: LocalStoreContext, request: IssueInviteRequest): Promise<void> {
  const { digest, expiresAt, now } = validateIssueInvite(request)
  try {
    await inStatement(() => context.db.insert(invitesTable).values({ digest, createdAt: now, expiresAt }))
  } catch (error) {
    throw duplicateOr(error, 'an invite with this digest')
  }
}
