import { AccountEmail, type AddressVerifiedListener, SecurityNotifier } from '@portcullis/core/account-email'
import { CodeKeyRing } from '@portcullis/core/codes'
import type { LocalAccounts, SecondFactorGate, SecurityEventSink } from '@portcullis/core/local-accounts'
import { type Mailer, MailOutboxDrain, type MailOutboxDrainEvent } from '@portcullis/core/mail'
import type { PasskeyCeremonies } from '@portcullis/core/passkeys'
import type { StepUpService } from '@portcullis/core/step-up'
import {
  type PostgresAccountStore,
  type PostgresClient,
  PostgresMailOutbox,
  PostgresNotificationSettings,
  PostgresOneTimeCodeStore,
  PostgresRateLimitStore,
} from '@portcullis/postgres'
import type { KeyMaterial } from '../secrets/key-material.js'

/** Where the pages of the flows are (the links in the mail point there). */
export const ACCOUNT_PATH_FOR_REVIEW = '/account'

/** The stores of the mail flows over Postgres and the notifier of security changes (before `LocalAccounts`). */
export interface MailStores {
  readonly outbox: PostgresMailOutbox
  readonly notificationSettings: PostgresNotificationSettings
  readonly notifier: SecurityNotifier
}

/**
 * The outbox and the notification settings in the app's Postgres database (the account changes write
 * their messages in the same transaction), and the notifier that turns security events of other stores
 * (TOTP, passkeys, provider links) into notifications: its `sink` goes before the app's event log.
 */
export function createMailStores(input: {
  readonly postgres: PostgresClient
  readonly accounts: PostgresAccountStore
  readonly keys: KeyMaterial
  readonly publicOrigin: string
}): MailStores {
  const client = input.postgres
  const outbox = new PostgresMailOutbox({ client })
  const notificationSettings = new PostgresNotificationSettings({ client })
  const notifier = new SecurityNotifier({
    accounts: input.accounts,
    notificationSettings,
    outbox,
    protector: input.keys.protector,
    reviewLink: `${input.publicOrigin}${ACCOUNT_PATH_FOR_REVIEW}`,
    onError: (_error, change) =>
      console.warn(`portcullis reference app: a ${change} notification could not be queued`),
  })
  return { outbox, notificationSettings, notifier }
}

/** The flows and the drain that sends their mail. */
export interface MailFlows {
  readonly accountEmail: AccountEmail
  /** Present when mail has somewhere to go; otherwise messages wait in the outbox. */
  readonly drain?: MailOutboxDrain
  /** Sends what is due now (after a page wrote mail), instead of at the next poll. */
  wake(): void
  close(): Promise<void>
}

/**
 * The account flows that go through mail (`AccountEmail`: password reset, verification, email change and
 * undo, notification settings) over the app's stores, and the outbox drain over the app's mailer. Codes
 * are digested with a key of the secrets (`KeyMaterial.emailCodeKeys`); links use the public origin.
 */
export function createMailFlows(input: {
  readonly postgres: PostgresClient
  readonly accounts: PostgresAccountStore
  readonly local: LocalAccounts
  readonly stores: MailStores
  readonly keys: KeyMaterial
  readonly publicOrigin: string
  readonly stepUp: StepUpService
  readonly secondFactor: SecondFactorGate
  /** The passkey ceremonies: a reset of an account with a passkey asks an assertion of it. */
  readonly passkeys?: PasskeyCeremonies | undefined
  readonly mailer: Mailer | undefined
  /** Look for due mail this often (ms); `wake` sends at once anyway. */
  readonly pollIntervalMs: number
  readonly events?: SecurityEventSink
  /** Told after every verification of an address commits (the organizations' automatic invitations). */
  readonly addressVerified?: AddressVerifiedListener
}): MailFlows {
  const client = input.postgres
  const accountEmail = new AccountEmail({
    accounts: input.accounts,
    local: input.local,
    codes: new PostgresOneTimeCodeStore({ client }),
    outbox: input.stores.outbox,
    notificationSettings: input.stores.notificationSettings,
    notifier: input.stores.notifier,
    protector: input.keys.protector,
    codeKeys: new CodeKeyRing(input.keys.emailCodeKey),
    publicOrigin: input.publicOrigin,
    rateLimits: new PostgresRateLimitStore({ client }),
    secondFactor: input.secondFactor,
    ...(input.passkeys === undefined ? {} : { passkeys: input.passkeys }),
    stepUp: input.stepUp,
    reviewLink: `${input.publicOrigin}${ACCOUNT_PATH_FOR_REVIEW}`,
    ...(input.addressVerified === undefined ? {} : { addressVerified: input.addressVerified }),
  })
  const drain =
    input.mailer === undefined
      ? undefined
      : new MailOutboxDrain({
          store: input.stores.outbox,
          mailer: input.mailer,
          protector: input.keys.protector,
          pollIntervalMs: input.pollIntervalMs,
          concurrency: 2,
          onEvent: (event: MailOutboxDrainEvent) => {
            // Ids, kinds and error codes only: never a recipient, a code or a link.
            if (event.type === 'mail.failed')
              console.warn(
                `portcullis reference app: mail ${event.id} (${event.kind}) failed: ${event.error}`,
              )
            if (event.type === 'mail.outbox_unavailable')
              console.warn(`portcullis reference app: the mail outbox did not answer (${event.code})`)
          },
        })
  drain?.start()
  return {
    accountEmail,
    ...(drain === undefined ? {} : { drain }),
    wake: () => drain?.wake(),
    async close() {
      await drain?.stop()
    },
  }
}
