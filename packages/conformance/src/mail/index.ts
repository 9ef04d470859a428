export type {
  MailOutboxFactory,
  MailOutboxFixture,
  NotificationSettingsFactory,
  NotificationSettingsFixture,
} from './fixture.js'
export {
  assertMailOutboxConformance,
  assertNotificationSettingsConformance,
  mailOutboxSuite,
  notificationSettingsSuite,
} from './suite.js'
