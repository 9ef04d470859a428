import type { transactions } from '@portcullis/core/oauth'
import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { bytea, instant } from '../columns/columns.js'

// Drizzle view of the table created by migration 0004, constraints and index included, so that a
// schema generated from this file matches the hand-written SQL.

export const oauthTransactionsTable = pgTable(
  'portcullis_oauth_transactions',
  {
    stateDigest: bytea('state_digest').notNull(),
    bindingDigest: bytea('binding_digest').notNull(),
    provider: text('provider').notNull(),
    operation: text('operation').$type<transactions.OAuthOperation>().notNull(),
    redirectUri: text('redirect_uri').notNull(),
    returnTo: text('return_to').notNull(),
    requestedScopes: text('requested_scopes').array().notNull(),
    /** `pe1.` envelope of the PKCE verifier (`serializeProtectedEnvelope`). */
    pkceVerifierEnvelope: text('pkce_verifier_envelope').notNull(),
    /** `pe1.` envelope of the OIDC nonce, when there is one. */
    nonceEnvelope: text('nonce_envelope'),
    expectedIssuer: text('expected_issuer'),
    accountId: text('account_id'),
    sessionBindingDigest: bytea('session_binding_digest'),
    securityEpoch: bigint('security_epoch', { mode: 'number' }),
    providerAccountId: text('provider_account_id'),
    stepUpPurpose: text('step_up_purpose'),
    maxAuthenticationAge: integer('max_authentication_age'),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (table) => [
    primaryKey({
      name: 'portcullis_oauth_transactions_pkey',
      columns: [table.stateDigest, table.bindingDigest, table.provider],
    }),
    check(
      'portcullis_oauth_transactions_digests_check',
      sql`octet_length(${table.stateDigest}) = 32 and octet_length(${table.bindingDigest}) = 32 and (${table.sessionBindingDigest} is null or octet_length(${table.sessionBindingDigest}) = 32)`,
    ),
    check(
      'portcullis_oauth_transactions_operation_check',
      sql`${table.operation} in ('login', 'link', 'scope-upgrade', 'revalidate', 'reauthenticate')`,
    ),
    check(
      'portcullis_oauth_transactions_lifetime_check',
      sql`${table.expiresAt} > ${table.createdAt} and ${table.expiresAt} <= ${table.createdAt} + interval '10 minutes'`,
    ),
    index('portcullis_oauth_transactions_expires_at_idx').on(table.expiresAt),
  ],
)

export type OAuthTransactionRow = typeof oauthTransactionsTable.$inferSelect
