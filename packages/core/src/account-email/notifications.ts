import { randomUUID } from 'node:crypto'
import type { EmailAddresses } from '../accounts/port.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import type { SecurityEvent, SecurityEventSink } from '../local-accounts/security-events.js'
import {
  SECURITY_CHANGE_TYPES,
  type SecurityChange,
  type SecurityChangeType,
  type SecurityNotificationMessage,
} from '../mail/messages.js'
import type { NotificationSettingsStore } from '../mail/notification-settings.js'
import type { MailOutboxStore, OutboxEntry } from '../mail/outbox.js'
import { sealOutboxMessage } from '../mail/outbox-seal.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import { invalidEmailFlowInput } from './errors.js'

// Security notifications: every change to how an account signs in, where its mail goes, or which
// clients act for it becomes a `security-notification` in the mail outbox, unless the account turned
// that kind off. Every change carries its entries to the store that makes it (`entries`): the
// `AccountStore`'s change requests (passwords, addresses, provider links), the TOTP and passkey stores,
// and the authorization server's grants take them as `outbox`, so the message exists exactly when the
// change commits. The services are given the notifier as `securityNotices` and mark their events
// `notified: true`. `notify` and `sink` enqueue after a commit instead, for an application that wires a
// service without it: a crash between that commit and the enqueue loses the message, never the change.

export interface SecurityNotifierOptions {
  /** Where an account's mail goes: its primary address, when verified. */
  readonly accounts: Pick<EmailAddresses, 'listEmailAddresses'>
  readonly notificationSettings: NotificationSettingsStore
  /** For `notify` (changes kept in other stores): the entries are enqueued on their own. */
  readonly outbox: MailOutboxStore
  /** Seals each message (recipient, links) in its outbox entry. */
  readonly protector: OAuthTransactionProtector
  /** An absolute http(s) URL of the page where the person reviews the account's security. */
  readonly reviewLink?: string
  /** The person's language for the templates; default `en`. */
  readonly locale?: (accountId: string) => string | Promise<string>
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  /**
   * Told when `notify` or the event sink could not enqueue (the change stands; the message is lost).
   * Gets the error and the change's type only, never an address.
   */
  readonly onError?: (error: unknown, change: SecurityChange['type']) => void
}

const OPTIONS: OptionsShape<SecurityNotifierOptions> = {
  accounts: { required: true, kind: 'object', code: 'account_email.notifier_options' },
  notificationSettings: { required: true, kind: 'object', code: 'account_email.notifier_options' },
  outbox: { required: true, kind: 'object', code: 'account_email.notifier_options' },
  protector: { required: true, kind: 'object', code: 'account_email.notifier_options' },
  reviewLink: {
    kind: 'string',
    code: 'account_email.notifier_options',
    check: (value) => (isHttpUrl(value) ? undefined : 'must be an absolute http(s) URL'),
  },
  locale: { kind: 'function', code: 'account_email.notifier_options' },
  clock: { kind: 'function', code: 'account_email.notifier_options' },
  onError: { kind: 'function', code: 'account_email.notifier_options' },
}

/** Where a notification goes besides (or instead of) the account's primary verified address. */
export interface NotificationRecipients {
  /**
   * Send to these addresses (normalized) instead of the primary: the old address after an email change,
   * an address that was just removed. Empty or absent: the primary verified address.
   */
  readonly to?: readonly string[]
  /** The instant of the change. Default the clock's now. */
  readonly occurredAt?: Date
}

/**
 * Turns security changes into `security-notification` outbox entries, respecting the account's
 * opt-outs (`NotificationSettingsStore`). An account without a verified primary address (and no
 * explicit recipient) gets no message.
 */
export class SecurityNotifier {
  readonly #options: SecurityNotifierOptions
  readonly #clock: () => number

  constructor(options: SecurityNotifierOptions) {
    readOptions(options, 'SecurityNotifier', OPTIONS)
    this.#options = options
    this.#clock = options.clock ?? Date.now
  }

  /**
   * The outbox entries of `change` for the account: what a flow passes as `outbox` in the same
   * `AccountStore` change request. Empty when the account turned this kind off or has nowhere to send.
   */
  async entries(
    accountId: string,
    change: SecurityChange,
    recipients: NotificationRecipients = {},
  ): Promise<readonly OutboxEntry[]> {
    const optOuts = await this.#options.notificationSettings.getOptOuts(accountId)
    if (optOuts.includes(change.type)) return []
    const to =
      recipients.to !== undefined && recipients.to.length > 0 ? recipients.to : await this.#primary(accountId)
    if (to.length === 0) return []
    const locale = (await this.#options.locale?.(accountId)) ?? 'en'
    const now = new Date(this.#clock())
    const occurredAt = recipients.occurredAt ?? now
    const entries: OutboxEntry[] = []
    for (const address of new Set(to)) {
      const message: SecurityNotificationMessage = {
        kind: 'security-notification',
        to: { address },
        locale,
        change,
        occurredAt,
        ...(this.#options.reviewLink === undefined ? {} : { reviewLink: this.#options.reviewLink }),
      }
      entries.push(
        await sealOutboxMessage(this.#options.protector, message, { id: randomUUID(), now, accountId }),
      )
    }
    return Object.freeze(entries)
  }

  /**
   * For a change kept outside the `AccountStore` (TOTP, passkeys, grants), after it committed: enqueues
   * its entries. True when a message was enqueued; false when opted out or nowhere to send. Throws what
   * the stores throw (see `observe` for the form that never throws).
   */
  async notify(
    accountId: string,
    change: SecurityChange,
    recipients: NotificationRecipients = {},
  ): Promise<boolean> {
    const entries = await this.entries(accountId, change, recipients)
    if (entries.length === 0) return false
    await this.#options.outbox.enqueue(entries)
    return true
  }

  /**
   * Notifies the change a security event reports, when it is one of the kinds kept outside the
   * `AccountStore`: a passkey registered or removed, TOTP enabled or disabled, recovery codes
   * regenerated, a provider identity linked (not a relink) or unlinked. Never throws and never delays
   * the caller; a failure goes to `onError`. Other events are ignored (password and address changes
   * are written with the change itself).
   */
  observe(event: SecurityEvent): void {
    const observed = changeOfEvent(event)
    if (observed === undefined) return
    const { accountId, change } = observed
    this.notify(accountId, change, { occurredAt: event.at }).catch((error: unknown) => {
      try {
        this.#options.onError?.(error, change.type)
      } catch {
        // The error handler failed as well; nothing else may.
      }
    })
  }

  /**
   * A security event sink that notifies (`observe`) and then hands every event to `next` (the
   * application's own sink): pass it as `LocalAccounts({ securityEvents })` and to the OAuth, TOTP
   * and passkey services that emit through it.
   */
  sink(next?: SecurityEventSink): SecurityEventSink {
    return (event) => {
      this.observe(event)
      return next?.(event)
    }
  }

  async #primary(accountId: string): Promise<readonly string[]> {
    const addresses = await this.#options.accounts.listEmailAddresses(accountId)
    const primary = addresses.find((address) => address.primary)
    return primary?.verified === true ? [primary.address] : []
  }
}

type EventOf<T extends SecurityEvent['type']> = Extract<SecurityEvent, { type: T }>
type ObservedEvent = EventOf<
  | 'passkey.registered'
  | 'passkey.removed'
  | 'totp.enabled'
  | 'totp.disabled'
  | 'recovery_codes.regenerated'
  | 'oauth.linked'
  | 'oauth.unlinked'
>

/** The account and change a security event reports, for the kinds kept outside the `AccountStore`. */
export function changeOfEvent(
  event: SecurityEvent,
): { readonly accountId: string; readonly change: SecurityChange } | undefined {
  const observed = event as ObservedEvent
  // Written with the change already (the service wrote it in the change's transaction).
  if ((observed as { readonly notified?: boolean }).notified === true) return undefined
  const change = observedChange(observed)
  return change === undefined ? undefined : { accountId: observed.accountId, change }
}

function observedChange(observed: ObservedEvent): SecurityChange | undefined {
  switch (observed.type) {
    case 'passkey.registered':
      return { type: 'factor-added', factor: 'passkey' }
    case 'passkey.removed':
      return { type: 'factor-removed', factor: 'passkey' }
    case 'totp.enabled':
      return { type: 'factor-added', factor: 'totp' }
    case 'totp.disabled':
      return { type: 'factor-removed', factor: 'totp' }
    case 'recovery_codes.regenerated':
      return { type: 'factor-added', factor: 'recovery-codes' }
    case 'oauth.linked':
      return observed.relinked ? undefined : { type: 'identity-linked', provider: observed.provider }
    case 'oauth.unlinked':
      return { type: 'identity-unlinked', provider: observed.provider }
    default:
      return undefined
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:'
  } catch {
    return false
  }
}

/** The notification settings of an account: every kind, and those it turned off. */
export interface NotificationSettingsView {
  readonly kinds: readonly SecurityChangeType[]
  readonly optOuts: readonly SecurityChangeType[]
}

/**
 * `{ optOuts }` of a settings form or JSON body: the kinds to turn off (one string or a list; absent or
 * empty turns every kind on). An unknown kind is `account_email.invalid_input`.
 */
export function readOptOuts(body: unknown): readonly SecurityChangeType[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidEmailFlowInput('the body must be an object')
  }
  for (const key of Object.keys(body)) {
    if (key !== 'optOuts') throw invalidEmailFlowInput(`unknown member ${JSON.stringify(key.slice(0, 64))}`)
  }
  const value = (body as { optOuts?: unknown }).optOuts
  const list = value === undefined || value === '' ? [] : Array.isArray(value) ? value : [value]
  if (list.length > SECURITY_CHANGE_TYPES.length * 2) throw invalidEmailFlowInput('optOuts is too long')
  for (const each of list) {
    if (typeof each !== 'string' || !SECURITY_CHANGE_TYPES.includes(each as SecurityChangeType)) {
      throw invalidEmailFlowInput(`optOuts must list kinds of ${SECURITY_CHANGE_TYPES.join(', ')}`)
    }
  }
  return Object.freeze(SECURITY_CHANGE_TYPES.filter((type) => list.includes(type)))
}
