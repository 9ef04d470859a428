import { randomUUID } from 'node:crypto'
import type { MailOutboxStore, NotificationSettingsStore, OutboxEntry } from '@portcullis/core/mail'

/**
 * An EMPTY `MailOutboxStore` for one case (a Postgres factory deletes the table's rows); `peer`, when
 * given, is a second store over the same storage (another app instance).
 */
export interface MailOutboxFixture {
  readonly store: MailOutboxStore
  readonly peer?: MailOutboxStore
  dispose?(): Promise<void> | void
}

export type MailOutboxFactory = () => MailOutboxFixture | Promise<MailOutboxFixture>

/**
 * A `NotificationSettingsStore` for one case, and how to make an account it accepts (`createAccount`
 * answers the new account's id) and delete one (`deleteAccount`).
 */
export interface NotificationSettingsFixture {
  readonly store: NotificationSettingsStore
  createAccount(): Promise<string>
  deleteAccount(accountId: string): Promise<void>
  dispose?(): Promise<void> | void
}

export type NotificationSettingsFactory = () =>
  | NotificationSettingsFixture
  | Promise<NotificationSettingsFixture>

/** The instant a case starts from (any day of some 55 years, so no store may rely on the wall clock). */
export function caseEpoch(): Date {
  const day = 86_400_000
  return new Date(Date.UTC(2040, 0, 1) + Math.floor(Math.random() * 20_000) * day)
}

/** An entry with an opaque envelope (a store never opens it). */
export function outboxEntry(createdAt: Date, accountId: string | null = 'account-1'): OutboxEntry {
  return {
    id: randomUUID(),
    kind: 'security-notification',
    accountId,
    envelope: `pe1.k1.${Buffer.from(randomUUID()).toString('base64url')}`,
    createdAt,
  }
}
