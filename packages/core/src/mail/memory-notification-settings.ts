import { InvalidInputError } from '../errors/portcullis-error.js'
import { SECURITY_CHANGE_TYPES, type SecurityChangeType } from './messages.js'
import type { NotificationSettingsStore, SetNotificationOptOutsRequest } from './notification-settings.js'

// Notification opt-outs in memory. Which accounts exist is the application's account store's to say:
// pass `accountExists` (for example `(id) => accounts.getAccount(id).then(Boolean)`) so that unknown
// accounts are refused as the Postgres store refuses them; deleting an account should call `forget`.

/** Stable code of a malformed settings request. */
export const NOTIFICATION_SETTINGS_INVALID = 'mail.invalid_notification_settings'

const UNSTORABLE = /[\p{Cc}\p{Cs}]/u
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

function invalid(message: string): InvalidInputError {
  return new InvalidInputError(NOTIFICATION_SETTINGS_INVALID, message)
}

/** An account id argument of a settings store, validated. */
export function validateSettingsAccountId(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 255 || UNSTORABLE.test(value)) {
    throw invalid('accountId must be 1-255 characters without control characters')
  }
  return value
}

/** `setOptOuts` input, validated and copied: the opt-outs deduplicated, in the stable order of `SECURITY_CHANGE_TYPES`. */
export function validateSetOptOuts(request: unknown): SetNotificationOptOutsRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw invalid('request must be an object')
  }
  const fields = request as Record<string, unknown>
  const optOuts = fields.optOuts
  if (!Array.isArray(optOuts) || optOuts.length > 64)
    throw invalid('optOuts must be an array of change types')
  for (const type of optOuts) {
    if (!SECURITY_CHANGE_TYPES.includes(type as SecurityChangeType)) {
      throw invalid('optOuts must hold security change types only')
    }
  }
  const now = fields.now
  if (
    !(now instanceof Date) ||
    Number.isNaN(now.getTime()) ||
    now.getTime() < 0 ||
    now.getTime() > MAX_TIME
  ) {
    throw invalid('now must be a valid Date')
  }
  return {
    accountId: validateSettingsAccountId(fields.accountId),
    optOuts: Object.freeze(SECURITY_CHANGE_TYPES.filter((type) => optOuts.includes(type))),
    now: new Date(now.getTime()),
  }
}

export interface MemoryNotificationSettingsOptions {
  /** Whether an account exists; default: every account does. */
  readonly accountExists?: (accountId: string) => boolean | Promise<boolean>
}

/** `NotificationSettingsStore` in memory. */
export class MemoryNotificationSettings implements NotificationSettingsStore {
  readonly #optOuts = new Map<string, readonly SecurityChangeType[]>()
  readonly #accountExists: (accountId: string) => boolean | Promise<boolean>

  constructor(options: MemoryNotificationSettingsOptions = {}) {
    this.#accountExists = options.accountExists ?? (() => true)
  }

  async getOptOuts(accountId: string): Promise<readonly SecurityChangeType[]> {
    return this.#optOuts.get(validateSettingsAccountId(accountId)) ?? Object.freeze([])
  }

  async setOptOuts(request: SetNotificationOptOutsRequest): Promise<boolean> {
    const { accountId, optOuts } = validateSetOptOuts(request)
    if (!(await this.#accountExists(accountId))) return false
    if (optOuts.length === 0) this.#optOuts.delete(accountId)
    else this.#optOuts.set(accountId, optOuts)
    return true
  }

  /** Drops an account's settings (call it when the account is deleted). */
  forget(accountId: string): void {
    this.#optOuts.delete(validateSettingsAccountId(accountId))
  }
}
