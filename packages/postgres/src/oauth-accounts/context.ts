import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import type { LinkRow } from './tables.js'

const { OAuthAccountError, OAuthAccountErrorCodes } = accounts

/** What the parts of one `PostgresOAuthAccountStore` share: the database and its provider registration. */
export interface AccountStoreContext {
  readonly db: NodePgDatabase
  /** Transactions borrow their connection from the pool directly (see `withConnection`). */
  readonly pool: pg.Pool
  /** Whether the hot-path statements may be named (see `PostgresClientOptions.preparedStatements`). */
  readonly preparedStatements: boolean
  readonly provider: string
  readonly clientId: string
  readonly protector: OAuthTransactionProtector
  /** Where revocations are announced (`revocationChannel` of the client's schema): an unlink's epoch move. */
  readonly channel: string
}

export function unknownAccount(): accounts.OAuthAccountError {
  return new OAuthAccountError(OAuthAccountErrorCodes.unknownAccount, 'the account does not exist')
}

/** The public, frozen view of a link row. */
export function toLink(row: LinkRow): accounts.LinkedProviderAccount {
  return Object.freeze({
    providerAccountId: row.providerAccountId,
    accountId: row.accountId,
    provider: row.provider,
    issuer: row.issuer,
    subject: row.subject,
    email: row.email,
    emailVerified: row.emailVerified,
    grant: Object.freeze({ scopes: Object.freeze([...row.grantScopes]), expiresAt: row.grantExpiresAt }),
    linkedAt: row.linkedAt,
    updatedAt: row.updatedAt,
  })
}
