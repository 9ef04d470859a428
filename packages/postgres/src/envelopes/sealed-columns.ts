import type { EnvelopeHolding } from '@portcullis/core/protection'
import { getTableName, type SQL, sql } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import { oneTimeCodesTable } from '../codes/tables.js'
import { mailOutboxTable } from '../mail/tables.js'
import { retriesTable, vaultTable } from '../oauth-accounts/tables.js'
import { oauthTransactionsTable } from '../oauth-transactions/tables.js'
import { totpEnrollmentsTable } from '../totp/tables.js'

/** A column that holds protector envelopes (`pe1.<keyVersion>.<ciphertext>`), and how it is counted. */
export interface SealedColumn {
  readonly table: PgTable
  readonly column: PgColumn
  readonly holding: EnvelopeHolding
  /**
   * The rows whose envelope may still be opened, at `now`; absent when every stored envelope may.
   * Rows outside it are not counted: nothing will ever open their envelope again.
   */
  readonly live?: (now: Date) => SQL
  /** How a count reads the column and why that stays cheap on a large database. */
  readonly method: string
}

/**
 * Every column of the Portcullis schema that holds protector envelopes: the one list the envelope
 * inventory counts. A column added to a table definition that stores envelopes must be added here; the
 * test `sealed-columns.test.ts` seals envelopes through every store and fails on any column of a
 * `portcullis_` table that holds one and is missing from this list.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = Object.freeze([
  {
    table: vaultTable,
    column: vaultTable.envelope,
    holding: 'oauth-token-vault',
    method:
      'sequential scan of the token vault: one row per provider account with retained tokens (no expiry: a refresh token outlives its access token); read once per count',
  },
  {
    table: retriesTable,
    column: retriesTable.envelope,
    holding: 'oauth-revocation-retry',
    method:
      'sequential scan of the revocation retries: one row per revocation that failed upstream and is still to retry (completed retries are deleted), so the table stays small',
  },
  {
    table: oauthTransactionsTable,
    column: oauthTransactionsTable.pkceVerifierEnvelope,
    holding: 'oauth-transaction',
    live: (now) => sql`${oauthTransactionsTable.expiresAt} > ${now}`,
    method:
      'index range scan on expires_at (portcullis_oauth_transactions_expires_at_idx): live transactions only, at most 10 minutes of sign-ins; expired ones can never be consumed',
  },
  {
    table: oauthTransactionsTable,
    column: oauthTransactionsTable.nonceEnvelope,
    holding: 'oauth-transaction',
    live: (now) => sql`${oauthTransactionsTable.expiresAt} > ${now}`,
    method:
      'index range scan on expires_at (portcullis_oauth_transactions_expires_at_idx): live transactions only, at most 10 minutes of sign-ins; expired ones can never be consumed',
  },
  {
    table: totpEnrollmentsTable,
    column: totpEnrollmentsTable.sealedSecret,
    holding: 'totp-secret',
    method:
      'sequential scan of the TOTP enrollments: one row per account with TOTP, pending or enabled (neither expires); read once per count',
  },
  {
    table: mailOutboxTable,
    column: mailOutboxTable.envelope,
    holding: 'mail-outbox',
    method:
      'sequential scan of the mail outbox: messages waiting to be sent (a sent one is deleted, one failed for good keeps no envelope), so the table stays small; every waiting message is opened when the drain sends it, however late',
  },
  {
    table: oneTimeCodesTable,
    column: oneTimeCodesTable.payload,
    holding: 'one-time-code',
    live: (now) => sql`${oneTimeCodesTable.expiresAt} > ${now}`,
    method:
      'index range scan on expires_at (portcullis_one_time_codes_expiry): live codes only (at most the longest code lifetime, an undo link of an email change); a code past its expiry can never be consumed',
  },
])

/** `table.column` of a sealed column, as reports and the CLI name it. */
export function sealedColumnName(sealed: Pick<SealedColumn, 'table' | 'column'>): string {
  return `${getTableName(sealed.table)}.${sealed.column.name}`
}
