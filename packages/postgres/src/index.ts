export type { PostgresAccountStoreOptions } from './accounts/store.js'
export { PostgresAccountStore } from './accounts/store.js'
export type { PostgresApiKeyStoreOptions } from './api-keys/store.js'
export { PostgresApiKeyStore } from './api-keys/store.js'
export type { PostgresOAuthServerStoreOptions } from './authorization-server/store.js'
export { PostgresOAuthServerStore } from './authorization-server/store.js'
export { PostgresErrorCodes, PostgresUnavailableError } from './client/database-error.js'
export type { PostgresClient, PostgresClientOptions } from './client/postgres-client.js'
export { createPostgresClient } from './client/postgres-client.js'
export type { PostgresOneTimeCodeStoreOptions } from './codes/store.js'
export { PostgresOneTimeCodeStore } from './codes/store.js'
export type { PostgresEnvelopeInventoryOptions } from './envelopes/inventory.js'
export { PostgresEnvelopeInventory } from './envelopes/inventory.js'
export type { SealedColumn } from './envelopes/sealed-columns.js'
export { SEALED_COLUMNS, sealedColumnName } from './envelopes/sealed-columns.js'
export type { PostgresRateLimitStoreOptions } from './local-accounts/rate-limit-store.js'
export { PostgresRateLimitStore } from './local-accounts/rate-limit-store.js'
export type { PostgresRefreshTokenStoreOptions } from './local-accounts/refresh-token-store.js'
export { PostgresRefreshTokenStore } from './local-accounts/refresh-token-store.js'
export type { PostgresSessionStoreOptions } from './local-accounts/session-store.js'
export { PostgresSessionStore } from './local-accounts/session-store.js'
export type {
  PostgresFailedOutboxRow,
  PostgresMailOutboxOptions,
  PostgresNotificationSettingsOptions,
} from './mail/index.js'
export {
  insertOutboxEntries,
  PostgresMailOutbox,
  PostgresNotificationSettings,
  withOutbox,
} from './mail/index.js'
export type { AppliedMigration, MigrationStatus } from './maintenance/status.js'
export { migrationStatus } from './maintenance/status.js'
export type { SweepOptions, SweepReport } from './maintenance/sweep.js'
export {
  EXPIRING_TABLES,
  FAILED_MAIL_RETENTION,
  ONE_TIME_CODES_EXPIRY,
  sweepExpired,
} from './maintenance/sweep.js'
export type { MigrateOptions, MigrationReport } from './migrations/migrate.js'
export { MIGRATION_LOCK_KEY, MIGRATIONS, MIGRATIONS_TABLE, migrate } from './migrations/migrate.js'
export type { Migration } from './migrations/migration.js'
export { inspectPostgresOAuthAccountStore } from './oauth-accounts/inspector.js'
export type { PostgresOAuthAccountStoreOptions } from './oauth-accounts/store.js'
export { PostgresOAuthAccountStore } from './oauth-accounts/store.js'
export type {
  PurgeExpiredOAuthTransactionsOptions,
  PurgeExpiredOAuthTransactionsReport,
} from './oauth-transactions/purge.js'
export { purgeExpiredOAuthTransactions } from './oauth-transactions/purge.js'
export type { PostgresOAuthTransactionStoreOptions } from './oauth-transactions/store.js'
export { PostgresOAuthTransactionStore } from './oauth-transactions/store.js'
export type { PostgresOrganizationDomainStoreOptions } from './organization-domains/store.js'
export { PostgresOrganizationDomainStore } from './organization-domains/store.js'
export type { PostgresOrganizationStoreOptions } from './organizations/store.js'
export { PostgresOrganizationStore } from './organizations/store.js'
export type { PostgresPasskeyChallengeStoreOptions } from './passkeys/challenge-store.js'
export { PostgresPasskeyChallengeStore } from './passkeys/challenge-store.js'
export type { PostgresPasskeyStoreOptions } from './passkeys/store.js'
export { PostgresPasskeyStore } from './passkeys/store.js'
export type { StatementExecutor } from './revocation/channel.js'
export { notifyRevocations, revocationChannel } from './revocation/channel.js'
export { PostgresRevocationNotices } from './revocation/listener.js'
export type {
  PostgresRevocationNoticesOptions,
  RevocationListenerProblem,
  RevocationListenerState,
} from './revocation/options.js'
export type { PostgresSecurityLogOptions } from './security-log/store.js'
export { PostgresSecurityLog } from './security-log/store.js'
export type { PostgresStepUpStoreOptions } from './step-up/store.js'
export { PostgresStepUpStore } from './step-up/store.js'
export type { PostgresTotpStoreOptions } from './totp/store.js'
export { PostgresTotpStore } from './totp/store.js'
