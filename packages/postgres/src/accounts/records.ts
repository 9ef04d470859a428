import {
  type Account,
  type AccountChangeRequest,
  accountRecord,
  type SetAccountStatusRequest,
  type SignInMethod,
  signInMethods,
  validateAccountChange,
  validateAccountId,
  validateSetAccountStatus,
} from '@portcullis/core/accounts'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { inStatement, inTransaction } from '../client/transaction.js'
import { type LocalStoreContext, preparedStatements } from '../local-accounts/client.js'
import { withOutbox } from '../mail/outbox-insert.js'
import { linksTable } from '../oauth-accounts/tables.js'
import { passkeysTable } from '../passkeys/tables.js'
import { notifyRevocations } from '../revocation/channel.js'
import { insertSecurityLogEntries } from '../security-log/store.js'
import { type AccountRow, accountsTable, passwordsTable } from './tables.js'

/** The lookup by id, prepared once per connection: it runs on every request that checks a security epoch. */
const hotPath = preparedStatements((db, name) => ({
  byId: db
    .select()
    .from(accountsTable)
    .where(eq(accountsTable.accountId, sql.placeholder('accountId')))
    .prepare(name('account_by_id')),
}))

const toAccount = (row: AccountRow): Account => accountRecord(row)

export async function getAccount(context: LocalStoreContext, accountId: string): Promise<Account | null> {
  const id = validateAccountId(accountId)
  const [row] = await hotPath(context, (prepared) => prepared.byId.execute({ accountId: id }))
  return row === undefined ? null : toAccount(row)
}

/**
 * The password, every identity and every usable passkey of the account, read in one statement each (one
 * snapshot per table).
 */
export async function listSignInMethods(
  context: LocalStoreContext,
  accountId: string,
): Promise<readonly SignInMethod[]> {
  const id = validateAccountId(accountId)
  const [passwords, links, passkeys] = await inStatement(() =>
    Promise.all([
      context.db.select().from(passwordsTable).where(eq(passwordsTable.accountId, id)),
      context.db
        .select()
        .from(linksTable)
        .where(eq(linksTable.accountId, id))
        .orderBy(asc(linksTable.provider)),
      context.db
        .select({
          credentialId: passkeysTable.credentialId,
          name: passkeysTable.name,
          createdAt: passkeysTable.createdAt,
          lastUsedAt: passkeysTable.lastUsedAt,
        })
        .from(passkeysTable)
        .where(and(eq(passkeysTable.accountId, id), isNull(passkeysTable.suspendedAt))),
    ]),
  )
  return signInMethods([
    ...passwords.map(
      (row): SignInMethod => ({
        kind: 'password',
        accountId: row.accountId,
        username: row.username,
        createdAt: row.createdAt,
        passwordChangedAt: row.passwordChangedAt,
      }),
    ),
    ...links.map(
      (row): SignInMethod => ({
        kind: 'identity',
        accountId: row.accountId,
        providerAccountId: row.providerAccountId,
        provider: row.provider,
        issuer: row.issuer,
        subject: row.subject,
        scopes: row.grantScopes,
        linkedAt: row.linkedAt,
        updatedAt: row.updatedAt,
      }),
    ),
    ...passkeys.map((row): SignInMethod => ({ kind: 'passkey', accountId: id, ...row })),
  ])
}

/**
 * One conditional UPDATE (`security_epoch = security_epoch + 1`, no concurrent increment is lost) and the
 * account's revocation notice, in one transaction.
 */
export async function bumpSecurityEpoch(
  context: LocalStoreContext,
  request: AccountChangeRequest,
): Promise<number | null> {
  const { accountId, now, outbox, securityLog } = validateAccountChange(request)
  return inTransaction(context.pool, async (tx) => {
    const [row] = await tx
      .update(accountsTable)
      .set({ securityEpoch: sql`${accountsTable.securityEpoch} + 1`, updatedAt: now })
      .where(eq(accountsTable.accountId, accountId))
      .returning({ securityEpoch: accountsTable.securityEpoch })
    if (row === undefined) return null
    await notifyRevocations(tx, context.channel, [{ kind: 'account', accountId }])
    await insertSecurityLogEntries(tx, securityLog)
    return withOutbox(tx, outbox, row.securityEpoch)
  })
}

/**
 * Disabling an active account moves its epoch in the same statement and sends the account's revocation
 * notice in the transaction; enabling never does.
 */
export async function setAccountStatus(
  context: LocalStoreContext,
  request: SetAccountStatusRequest,
): Promise<Account | null> {
  const { accountId, status, now, outbox, securityLog } = validateSetAccountStatus(request)
  return inTransaction(context.pool, async (tx) => {
    const [row] = await tx
      .update(accountsTable)
      .set({
        status,
        updatedAt: now,
        securityEpoch:
          status === 'disabled'
            ? sql`${accountsTable.securityEpoch} + case when ${accountsTable.status} = 'active' then 1 else 0 end`
            : sql`${accountsTable.securityEpoch}`,
      })
      .where(eq(accountsTable.accountId, accountId))
      .returning()
    if (row === undefined) return null
    if (status === 'disabled') {
      await notifyRevocations(tx, context.channel, [{ kind: 'account', accountId }])
    }
    await insertSecurityLogEntries(tx, securityLog)
    return withOutbox(tx, outbox, toAccount(row))
  })
}
