import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import type {
  MailOutboxFactory,
  MailOutboxFixture,
  NotificationSettingsFactory,
  NotificationSettingsFixture,
} from './fixture.js'
import { outboxCases } from './outbox-cases.js'
import { settingsCases } from './settings-cases.js'

/**
 * The `MailOutboxStore` suite: oldest first and only what is due, leases that hide a claimed message
 * and hand it out again when they end, two instances racing on claims never sharing a message,
 * complete / reschedule / fail semantics, and typed errors for bad input (a refused batch writes nothing).
 */
export function mailOutboxSuite(factory: MailOutboxFactory): ConformanceSuite<MailOutboxFixture> {
  return {
    name: 'MailOutboxStore conformance',
    cases: outboxCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every `MailOutboxStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertMailOutboxConformance(factory: MailOutboxFactory): Promise<void> {
  return assertSuite(mailOutboxSuite(factory))
}

/** The `NotificationSettingsStore` suite: replace semantics, unknown and deleted accounts, bad input. */
export function notificationSettingsSuite(
  factory: NotificationSettingsFactory,
): ConformanceSuite<NotificationSettingsFixture> {
  return {
    name: 'NotificationSettingsStore conformance',
    cases: settingsCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every `NotificationSettingsStore` case. */
export function assertNotificationSettingsConformance(factory: NotificationSettingsFactory): Promise<void> {
  return assertSuite(notificationSettingsSuite(factory))
}
