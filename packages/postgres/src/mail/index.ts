// The mail outbox and notification settings on Postgres.

export type { PostgresNotificationSettingsOptions } from './notification-settings-store.js'
export { PostgresNotificationSettings } from './notification-settings-store.js'
export { insertOutboxEntries, withOutbox } from './outbox-insert.js'
export type { PostgresFailedOutboxRow, PostgresMailOutboxOptions } from './outbox-store.js'
export { PostgresMailOutbox } from './outbox-store.js'
