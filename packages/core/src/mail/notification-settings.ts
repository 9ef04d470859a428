import type { SecurityChangeType } from './messages.js'

// Which security notifications an account turned off. Every kind is on until the person turns it off;
// the store keeps only the opt-outs. Deleting the account deletes its settings.

export interface SetNotificationOptOutsRequest {
  readonly accountId: string
  /** The complete set of kinds turned off (replaces the stored set); empty turns every kind on. */
  readonly optOuts: readonly SecurityChangeType[]
  readonly now: Date
}

/**
 * Memory: `MemoryNotificationSettings`; Postgres: `PostgresNotificationSettings`; conformance:
 * `assertNotificationSettingsConformance`.
 */
export interface NotificationSettingsStore {
  /** The kinds the account turned off; empty for an account that turned none off, or an unknown one. */
  getOptOuts(accountId: string): Promise<readonly SecurityChangeType[]>
  /** Replaces the account's opt-outs; false for an unknown account (nothing written). */
  setOptOuts(request: SetNotificationOptOutsRequest): Promise<boolean>
}
