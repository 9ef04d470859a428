// The account stores of schema version 5 (0.1.0, commit 0d23357) as they were: password accounts in
// `portcullis_local_accounts`, OAuth accounts and their method counts in `portcullis_accounts`. Frozen for
// the migration test, which populates a database through this previous public API before migration 6
// merges the two. Only what populating needs is kept (the vault and its tables did not change, so the
// current vault code retains tokens); edit nothing here but what keeps it compiling.
import { randomUUID } from 'node:crypto'
import { validateCreateAccount, validateSetPassword } from '@portcullis/core/accounts'
import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { and, eq, sql } from 'drizzle-orm'
import { bigint, check, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { inTransaction, type Transaction } from '../../src/client/transaction.js'
import type { PostgresClient } from '../../src/index.js'
import type { AccountStoreContext } from '../../src/oauth-accounts/context.js'
import { toLink as currentToLink } from '../../src/oauth-accounts/context.js'
import {
  optionalTokenSet,
  requireGrant,
  requireId,
  requireIdentity,
  requireNow,
} from '../../src/oauth-accounts/request-input.js'

import { retainTokens } from '../../src/oauth-accounts/vault.js'

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

// The identity links of version 5: the current table without the columns later migrations added.
const linksTable = pgTable('portcullis_oauth_links', {
  providerAccountId: text('provider_account_id').primaryKey(),
  accountId: text('account_id').notNull(),
  provider: text('provider').notNull(),
  issuer: text('issuer').notNull(),
  subject: text('subject').notNull(),
  grantScopes: text('grant_scopes').array().notNull(),
  grantExpiresAt: instant('grant_expires_at'),
  linkedAt: instant('linked_at').notNull(),
  updatedAt: instant('updated_at').notNull(),
})
type LinkRowV5 = typeof linksTable.$inferSelect
const toLink = (row: LinkRowV5) => currentToLink({ ...row, email: null, emailVerified: null })

const accountsV5 = pgTable(
  'portcullis_accounts',
  {
    accountId: text('account_id').primaryKey(),
    otherLoginMethods: integer('other_login_methods').notNull(),
    providerLinks: integer('provider_links').notNull().default(0),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (table) => [check('portcullis_accounts_provider_links_check', sql`${table.providerLinks} >= 0`)],
)

const localAccountsV5 = pgTable(
  'portcullis_local_accounts',
  {
    accountId: text('account_id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    securityEpoch: bigint('security_epoch', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    passwordChangedAt: instant('password_changed_at').notNull(),
  },
  (table) => [unique('portcullis_local_accounts_username_key').on(table.username)],
)

/** `PostgresLocalAccountStore` of schema version 5: sign-up and password change. */
export class V5LocalAccountStore {
  constructor(private readonly client: PostgresClient) {}

  async createAccount(request: { accountId: string; username: string; passwordHash: string; now: Date }) {
    const { accountId, username, passwordHash, now } = validateCreateAccount(request)
    const [row] = await this.client.db
      .insert(localAccountsV5)
      .values({
        accountId,
        username,
        passwordHash,
        securityEpoch: 1,
        createdAt: now,
        updatedAt: now,
        passwordChangedAt: now,
      })
      .onConflictDoNothing({ target: localAccountsV5.username })
      .returning()
    return row === undefined
      ? { outcome: 'username-taken' as const }
      : { outcome: 'created' as const, account: row }
  }

  async setPassword(request: { accountId: string; passwordHash: string; now: Date; bumpEpoch: boolean }) {
    const change = validateSetPassword(request)
    const [row] = await this.client.db
      .update(localAccountsV5)
      .set({
        passwordHash: change.passwordHash,
        updatedAt: change.now,
        passwordChangedAt: change.now,
        ...(change.bumpEpoch ? { securityEpoch: sql`${localAccountsV5.securityEpoch} + 1` } : {}),
      })
      .where(eq(localAccountsV5.accountId, change.accountId))
      .returning()
    return row ?? null
  }
}

/** `PostgresOAuthAccountStore` of schema version 5: the directory, first sign-in and link. */
export class V5OAuthAccountStore {
  readonly #context: AccountStoreContext

  constructor(
    client: PostgresClient,
    provider: string,
    clientId: string,
    protector: OAuthTransactionProtector,
  ) {
    this.#context = {
      db: client.db,
      pool: client.pool,
      preparedStatements: false,
      provider,
      clientId,
      protector,
      channel: 'portcullis_revocations_v5',
    }
  }

  async registerAccount(request: { accountId: string; loginMethods: number }): Promise<boolean> {
    const inserted = await this.#context.db
      .insert(accountsV5)
      .values({ accountId: request.accountId, otherLoginMethods: request.loginMethods, providerLinks: 0 })
      .onConflictDoNothing({ target: accountsV5.accountId })
      .returning({ accountId: accountsV5.accountId })
    return inserted.length === 1
  }

  async login(request: {
    identity: accounts.ProviderIdentity
    grant: accounts.ProviderGrantInput
    tokens?: accounts.ProviderTokenSet
    provisionUnknown: boolean
    now: Date
  }): Promise<accounts.OAuthLoginOutcome> {
    const context = this.#context
    const identity = requireIdentity(request.identity, context.provider)
    const grant = requireGrant(request.grant)
    const tokens = optionalTokenSet(request.tokens)
    const now = requireNow(request.now)
    return inTransaction(context.pool, async (tx) => {
      const existing = await this.#lockIdentity(tx, identity)
      if (existing !== undefined) {
        const row = await this.#refreshGrant(tx, existing.providerAccountId, grant, now)
        return {
          provisioned: false,
          link: toLink(row),
          tokens: await retainTokens(tx, context, row.providerAccountId, tokens),
        }
      }
      if (!request.provisionUnknown) {
        throw new accounts.OAuthAccountError(
          accounts.OAuthAccountErrorCodes.unknownIdentity,
          'unknown identity',
        )
      }
      const accountId = `acct_${randomUUID()}`
      await tx.insert(accountsV5).values({ accountId, otherLoginMethods: 0, providerLinks: 1 })
      const [created] = await tx
        .insert(linksTable)
        .values({
          providerAccountId: `pa_${randomUUID()}`,
          accountId,
          provider: context.provider,
          issuer: identity.issuer,
          subject: identity.subject,
          grantScopes: [...grant.scopes],
          grantExpiresAt: grant.expiresAt,
          linkedAt: now,
          updatedAt: now,
        })
        .returning()
      if (created === undefined) throw new Error('v5 login: no link')
      return {
        provisioned: true,
        link: toLink(created),
        tokens: await retainTokens(tx, context, created.providerAccountId, tokens),
      }
    })
  }

  async link(request: {
    accountId: string
    identity: accounts.ProviderIdentity
    grant: accounts.ProviderGrantInput
    tokens?: accounts.ProviderTokenSet
    now: Date
  }): Promise<accounts.LinkedProviderAccount> {
    const context = this.#context
    const accountId = requireId(request.accountId, 'accountId')
    const identity = requireIdentity(request.identity, context.provider)
    const grant = requireGrant(request.grant)
    const tokens = optionalTokenSet(request.tokens)
    const now = requireNow(request.now)
    return inTransaction(context.pool, async (tx) => {
      const [created] = await tx
        .insert(linksTable)
        .values({
          providerAccountId: `pa_${randomUUID()}`,
          accountId,
          provider: context.provider,
          issuer: identity.issuer,
          subject: identity.subject,
          grantScopes: [...grant.scopes],
          grantExpiresAt: grant.expiresAt,
          linkedAt: now,
          updatedAt: now,
        })
        .returning()
      if (created === undefined) throw new Error('v5 link: no link')
      await tx
        .update(accountsV5)
        .set({ providerLinks: sql`${accountsV5.providerLinks} + 1` })
        .where(eq(accountsV5.accountId, accountId))
      await retainTokens(tx, context, created.providerAccountId, tokens)
      return toLink(created)
    })
  }

  async #lockIdentity(
    tx: Transaction,
    identity: { issuer: string; subject: string },
  ): Promise<LinkRowV5 | undefined> {
    const [row] = await tx
      .select()
      .from(linksTable)
      .where(
        and(
          eq(linksTable.provider, this.#context.provider),
          eq(linksTable.issuer, identity.issuer),
          eq(linksTable.subject, identity.subject),
        ),
      )
      .for('update')
    return row
  }

  async #refreshGrant(tx: Transaction, providerAccountId: string, grant: accounts.ProviderGrant, now: Date) {
    const [row] = await tx
      .update(linksTable)
      .set({ grantScopes: [...grant.scopes], grantExpiresAt: grant.expiresAt, updatedAt: now })
      .where(eq(linksTable.providerAccountId, providerAccountId))
      .returning()
    if (row === undefined) throw new Error('v5 login: the link disappeared')
    return row
  }
}
