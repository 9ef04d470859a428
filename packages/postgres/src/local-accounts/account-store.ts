import {
  type BumpSecurityEpochRequest,
  type CreateLocalAccountOutcome,
  type CreateLocalAccountRequest,
  type FindLocalAccountQuery,
  type IssueInviteRequest,
  type LocalAccountRecord,
  type LocalAccountStore,
  localAccountRecord,
  type SetPasswordRequest,
  validateBumpSecurityEpoch,
  validateCreateLocalAccount,
  validateFindLocalAccount,
  validateIssueInvite,
  validateSetPassword,
} from '@portcullis/core/local-accounts'
import { and, eq, sql } from 'drizzle-orm'
import { inStatement, inTransaction } from '../client/transaction.js'
import { notifyRevocations } from '../revocation/channel.js'
import {
  duplicateOr,
  type LocalStoreClient,
  type LocalStoreContext,
  preparedStatements,
  storeContext,
} from './client.js'
import { localAccountsTable as accounts, localAccountInvitesTable as invites } from './tables.js'

/** The lookup by id, prepared once per connection: it runs on every request that checks a security epoch. */
const hotPath = preparedStatements((db, name) => ({
  byId: db
    .select()
    .from(accounts)
    .where(eq(accounts.accountId, sql.placeholder('accountId')))
    .prepare(name('account_by_id')),
}))

export interface PostgresLocalAccountStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
}

/**
 * The durable `LocalAccountStore`. `createAccount` is one transaction: the invite row is locked
 * (`SELECT ... FOR UPDATE`) and checked first, the account is inserted with
 * `ON CONFLICT (username) DO NOTHING`, and only then is the invite consumed, so concurrent creations
 * meet on the username's unique key and on the invite's row lock: one winner each, and a taken
 * username never burns the invite. `setPassword` and `bumpSecurityEpoch` are single conditional
 * UPDATEs (`security_epoch = security_epoch + 1`), so no concurrent increment is lost; one that moves
 * the epoch sends the account's revocation notice in the same transaction (`notifyRevocations`).
 */
export class PostgresLocalAccountStore implements LocalAccountStore {
  readonly #context: LocalStoreContext

  constructor(options: PostgresLocalAccountStoreOptions) {
    this.#context = storeContext(options, 'PostgresLocalAccountStore')
  }

  async createAccount(request: CreateLocalAccountRequest): Promise<CreateLocalAccountOutcome> {
    const { accountId, username, passwordHash, now, inviteDigest } = validateCreateLocalAccount(request)
    try {
      return await inTransaction(this.#context.pool, async (tx): Promise<CreateLocalAccountOutcome> => {
        if (inviteDigest !== undefined) {
          const [invite] = await tx
            .select({ expiresAt: invites.expiresAt, consumedAt: invites.consumedAt })
            .from(invites)
            .where(eq(invites.digest, inviteDigest))
            .for('update')
          if (
            invite === undefined ||
            invite.consumedAt !== null ||
            invite.expiresAt.getTime() <= now.getTime()
          ) {
            return { outcome: 'invite-invalid' }
          }
        }
        const [row] = await tx
          .insert(accounts)
          .values({
            accountId,
            username,
            passwordHash,
            securityEpoch: 1,
            createdAt: now,
            updatedAt: now,
            passwordChangedAt: now,
          })
          .onConflictDoNothing({ target: accounts.username })
          .returning()
        if (row === undefined) return { outcome: 'username-taken' }
        if (inviteDigest !== undefined) {
          await tx
            .update(invites)
            .set({ consumedAt: now, consumedBy: accountId })
            .where(eq(invites.digest, inviteDigest))
        }
        return { outcome: 'created', account: localAccountRecord(row) }
      })
    } catch (error) {
      throw duplicateOr(error, 'an account with this id')
    }
  }

  async findAccount(query: FindLocalAccountQuery): Promise<LocalAccountRecord | null> {
    const key = validateFindLocalAccount(query)
    const [row] =
      'username' in key
        ? await inStatement(() =>
            this.#context.db.select().from(accounts).where(eq(accounts.username, key.username)),
          )
        : await hotPath(this.#context, (prepared) => prepared.byId.execute({ accountId: key.accountId }))
    return row === undefined ? null : localAccountRecord(row)
  }

  async setPassword(request: SetPasswordRequest): Promise<LocalAccountRecord | null> {
    const change = validateSetPassword(request)
    const set = {
      passwordHash: change.passwordHash,
      updatedAt: change.now,
      ...(change.rehash ? {} : { passwordChangedAt: change.now }),
      ...(change.bumpEpoch ? { securityEpoch: sql`${accounts.securityEpoch} + 1` } : {}),
    }
    const where = and(
      eq(accounts.accountId, change.accountId),
      change.expectedPasswordHash === undefined
        ? undefined
        : eq(accounts.passwordHash, change.expectedPasswordHash),
    )
    if (!change.bumpEpoch) {
      const [row] = await inStatement(() =>
        this.#context.db.update(accounts).set(set).where(where).returning(),
      )
      return row === undefined ? null : localAccountRecord(row)
    }
    return inTransaction(this.#context.pool, async (tx) => {
      const [row] = await tx.update(accounts).set(set).where(where).returning()
      if (row === undefined) return null
      await notifyRevocations(tx, this.#context.channel, [{ kind: 'account', accountId: row.accountId }])
      return localAccountRecord(row)
    })
  }

  async bumpSecurityEpoch(request: BumpSecurityEpochRequest): Promise<number | null> {
    const { accountId, now } = validateBumpSecurityEpoch(request)
    return inTransaction(this.#context.pool, async (tx) => {
      const [row] = await tx
        .update(accounts)
        .set({ securityEpoch: sql`${accounts.securityEpoch} + 1`, updatedAt: now })
        .where(eq(accounts.accountId, accountId))
        .returning({ securityEpoch: accounts.securityEpoch })
      if (row === undefined) return null
      await notifyRevocations(tx, this.#context.channel, [{ kind: 'account', accountId }])
      return row.securityEpoch
    })
  }

  async issueInvite(request: IssueInviteRequest): Promise<void> {
    const { digest, expiresAt, now } = validateIssueInvite(request)
    try {
      await inStatement(() => this.#context.db.insert(invites).values({ digest, createdAt: now, expiresAt }))
    } catch (error) {
      throw duplicateOr(error, 'an invite with this digest')
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresLocalAccountStore {}'
  }
}
