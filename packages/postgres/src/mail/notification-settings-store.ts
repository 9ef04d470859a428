import { ConfigurationError } from '@portcullis/core'
import {
  type NotificationSettingsStore,
  SECURITY_CHANGE_TYPES,
  type SecurityChangeType,
  type SetNotificationOptOutsRequest,
  validateSetOptOuts,
  validateSettingsAccountId,
} from '@portcullis/core/mail'
import { eq, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import { notificationSettingsTable } from './tables.js'

export interface PostgresNotificationSettingsOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db'>
}

/**
 * The durable `NotificationSettingsStore` (`portcullis_notification_settings`): one row per account that
 * turned something off, removed with the account (`on delete cascade`). `setOptOuts` is one upsert; an
 * unknown account fails its foreign key and answers false.
 */
export class PostgresNotificationSettings implements NotificationSettingsStore {
  readonly #db: NodePgDatabase

  constructor(options: PostgresNotificationSettingsOptions) {
    if (typeof options?.client?.db?.insert !== 'function') {
      throw new ConfigurationError(
        'mail.notification_settings_options',
        'PostgresNotificationSettings needs a client from createPostgresClient',
      )
    }
    this.#db = options.client.db
  }

  async getOptOuts(accountId: string): Promise<readonly SecurityChangeType[]> {
    const id = validateSettingsAccountId(accountId)
    const [row] = await inStatement(() =>
      this.#db
        .select({ optOuts: notificationSettingsTable.optOuts })
        .from(notificationSettingsTable)
        .where(eq(notificationSettingsTable.accountId, id)),
    )
    const stored = new Set(row?.optOuts ?? [])
    return Object.freeze(SECURITY_CHANGE_TYPES.filter((type) => stored.has(type)))
  }

  async setOptOuts(request: SetNotificationOptOutsRequest): Promise<boolean> {
    const { accountId, optOuts, now } = validateSetOptOuts(request)
    try {
      await inStatement(() =>
        this.#db
          .insert(notificationSettingsTable)
          .values({ accountId, optOuts: [...optOuts], updatedAt: now })
          .onConflictDoUpdate({
            target: notificationSettingsTable.accountId,
            set: { optOuts: sql`excluded.opt_outs`, updatedAt: sql`excluded.updated_at` },
          }),
      )
      return true
    } catch (error) {
      if (sqlStateOf(error) === '23503') return false
      throw error
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresNotificationSettings {}'
  }
}
