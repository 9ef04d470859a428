import { sql } from 'drizzle-orm'
import { bigint, check, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { instant } from '../columns/columns.js'

/**
 * The authorization server's entries (oidc-provider's adapter models): one row per model and id, the
 * provider's payload as given, and the fields the store looks entries up by, read from the payload when
 * the entry is saved. A `Grant` row also records its account's security epoch at that moment; the grant
 * is active only while the account still has it. Tokens, codes and interactions of a grant carry its
 * `grant_id`, so revoking the grant is one indexed DELETE.
 */
export const oauthServerEntriesTable = pgTable(
  'portcullis_oauth_server_entries',
  {
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    uid: text('uid'),
    userCode: text('user_code'),
    accountId: text('account_id'),
    clientId: text('client_id'),
    securityEpoch: bigint('security_epoch', { mode: 'number' }),
    consumedAt: instant('consumed_at'),
    expiresAt: instant('expires_at'),
    createdAt: instant('created_at').notNull(),
    lastUsedAt: instant('last_used_at'),
  },
  (table) => [
    primaryKey({ name: 'portcullis_oauth_server_entries_pkey', columns: [table.model, table.id] }),
    check('portcullis_oauth_server_entries_payload_check', sql`jsonb_typeof(${table.payload}) = 'object'`),
    index('portcullis_oauth_server_entries_grant_id_idx').on(table.grantId),
    index('portcullis_oauth_server_entries_uid_idx').on(table.model, table.uid),
    index('portcullis_oauth_server_entries_user_code_idx').on(table.model, table.userCode),
    index('portcullis_oauth_server_entries_account_idx')
      .on(table.accountId)
      .where(sql`${table.model} = 'Grant'`),
    index('portcullis_oauth_server_entries_expires_at_idx').on(table.expiresAt),
  ],
)

export type OAuthServerEntryRow = typeof oauthServerEntriesTable.$inferSelect

/** A `Grant` row, as a literal so that the partial index on an account's grants applies to every plan. */
export const isGrant = sql`${oauthServerEntriesTable.model} = 'Grant'`
