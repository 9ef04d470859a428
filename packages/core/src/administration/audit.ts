import type { LoggableEvent, SecurityLogEntries } from '../security-log/entries.js'
import type { SecurityLogEntry } from '../security-log/entry.js'
import { writesSecurityLogInTransaction } from '../security-log/in-transaction.js'
import type { SecurityLog } from '../security-log/port.js'
import type { SecurityLogWriter } from '../security-log/writer.js'
import { AdministrationError, AdministrationErrorCodes } from './errors.js'

/** The security-log type of each administrative act: `accountId` the target, `actorId` the administrator. */
export const ADMINISTRATION_EVENT_TYPES = Object.freeze({
  disabled: 'administration.account_disabled',
  enabled: 'administration.account_enabled',
  signedOut: 'administration.signed_out',
  apiKeyRevoked: 'administration.api_key_revoked',
  grantRevoked: 'administration.grant_revoked',
  passwordResetRequired: 'administration.password_reset_required',
  deleted: 'administration.account_deleted',
} as const)

export type AdministrationEventType =
  (typeof ADMINISTRATION_EVENT_TYPES)[keyof typeof ADMINISTRATION_EVENT_TYPES]

/** The most characters of a reason; it is kept in the entry's `details.reasonText`. */
export const MAX_ADMINISTRATION_REASON = 200

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/** The administrator's reason, trimmed: 1-200 characters without control characters. */
export function requireAdministrationReason(value: unknown): string {
  const reason = typeof value === 'string' ? value.trim() : ''
  if (reason.length === 0 || reason.length > MAX_ADMINISTRATION_REASON || CONTROL.test(reason)) {
    throw new AdministrationError(
      AdministrationErrorCodes.reasonRequired,
      `a reason of 1-${MAX_ADMINISTRATION_REASON} characters without control characters is required`,
    )
  }
  return reason
}

/** What an audit entry records beside its type: who acted on whom, why, from where. */
export interface AdministrationAuditFacts {
  readonly administratorId: string
  readonly administratorSession: string
  readonly accountId: string
  readonly reason: string
  readonly clientAddress?: string | undefined
  readonly userAgent?: string | undefined
  /** Non-secret identifiers of what was acted on (`keyId`, `grantId`), kept in `details`. */
  readonly keyId?: string
  readonly grantId?: string
}

/**
 * Writes the audit entries of administrative acts, each before the act's answer: in the change's own
 * transaction where its store can (`audited`); otherwise straight to the log after the change, or, when
 * the log refuses or fails, into the writer's queue (retried, counted and reported, never dropped
 * silently). Without a writer, a failed write is `administration.audit_unavailable`.
 */
export class AdministrationAudit {
  readonly #log: SecurityLog
  readonly #entries: SecurityLogEntries
  readonly #writer: SecurityLogWriter | undefined

  constructor(log: SecurityLog, entries: SecurityLogEntries, writer?: SecurityLogWriter) {
    this.#log = log
    this.#entries = entries
    this.#writer = writer
  }

  /** The event of an act: the reason is free text (`details.reasonText`) unless it reads like a code. */
  eventOf(type: AdministrationEventType, facts: AdministrationAuditFacts, at: Date): LoggableEvent {
    return {
      type,
      at,
      accountId: facts.accountId,
      actorId: facts.administratorId,
      reason: facts.reason,
      sessionHandle: facts.administratorSession,
      ...(facts.clientAddress === undefined ? {} : { clientAddress: facts.clientAddress }),
      ...(facts.userAgent === undefined ? {} : { userAgent: facts.userAgent }),
      ...(facts.keyId === undefined ? {} : { keyId: facts.keyId }),
      ...(facts.grantId === undefined ? {} : { grantId: facts.grantId }),
    }
  }

  /**
   * Makes a change and its audit entry. Where `store` writes entries in its transaction
   * (`securityLogInTransaction`), the entry goes with the change (`securityLog`): both commit or
   * neither. Otherwise the change runs first and the entry is written after it (`record`). `change`
   * throws when nothing changed, so no entry is written for it.
   */
  async audited<T>(
    type: AdministrationEventType,
    facts: AdministrationAuditFacts,
    store: unknown,
    change: (securityLog: readonly SecurityLogEntry[] | undefined) => Promise<T>,
  ): Promise<{ readonly result: T; readonly entry: SecurityLogEntry }> {
    if (writesSecurityLogInTransaction(store)) {
      const entry = this.#entries.entryOf(this.eventOf(type, facts, new Date()))
      const result = await change([entry])
      return { result, entry }
    }
    const result = await change(undefined)
    return { result, entry: await this.record(type, facts) }
  }

  /** Writes the act's entry; answers it. */
  async record(
    type: AdministrationEventType,
    facts: AdministrationAuditFacts,
    at = new Date(),
  ): Promise<SecurityLogEntry> {
    const event = this.eventOf(type, facts, at)
    const entry = this.#entries.entryOf(event)
    try {
      await this.#log.append([entry])
      return entry
    } catch (error) {
      if (this.#writer === undefined) {
        throw new AdministrationError(
          AdministrationErrorCodes.auditUnavailable,
          'the audit entry could not be written',
          {
            cause: error,
          },
        )
      }
      this.#writer.record(event)
      return entry
    }
  }
}
