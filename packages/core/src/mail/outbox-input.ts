import { InvalidInputError } from '../errors/portcullis-error.js'
import { MAIL_MESSAGE_KINDS, type MailMessageKind } from './messages.js'
import type { ClaimOutboxRequest, FailOutboxRequest, OutboxEntry, RescheduleOutboxRequest } from './outbox.js'

// The checks every outbox store (memory, Postgres, yours) applies before it writes anything, so bad
// input is the same typed `mail.invalid_outbox_entry` / `mail.invalid_outbox_request` error everywhere.
// Messages name the field and the rule, never the value (an envelope is a sealed message).

/** Stable codes of outbox input errors. */
export const OutboxErrorCodes = {
  /** An entry that is malformed: id not a UUID, unknown kind, blank or oversized envelope, bad date. */
  invalidEntry: 'mail.invalid_outbox_entry',
  /** Two entries, or an entry and a stored row, with the same id. Nothing was written. */
  duplicateEntry: 'mail.duplicate_outbox_entry',
  /** A claim, reschedule or fail request that is malformed. */
  invalidRequest: 'mail.invalid_outbox_request',
} as const

/** The most entries one change may write. */
export const MAX_OUTBOX_ENTRIES_PER_CHANGE = 16
/** The longest sealed envelope a store keeps (a sealed message is a few hundred bytes to a few KiB). */
export const MAX_OUTBOX_ENVELOPE_LENGTH = 96 * 1024
/** The most rows one claim hands out. */
export const MAX_OUTBOX_CLAIM = 1000
/** The longest lease, in seconds (one hour). */
export const MAX_OUTBOX_LEASE_SECONDS = 3600

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** A `MailError` code or another short machine-readable token: never free text that could hold a body. */
const ERROR_CODE = /^[a-z0-9][a-z0-9._:-]{0,99}$/
const ENVELOPE = /^[\x21-\x7e]+$/
const UNSTORABLE = /[\p{Cc}\p{Cs}]/u
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

function invalidEntry(message: string): InvalidInputError {
  return new InvalidInputError(OutboxErrorCodes.invalidEntry, message)
}

function invalidRequest(message: string): InvalidInputError {
  return new InvalidInputError(OutboxErrorCodes.invalidRequest, message)
}

function record(value: unknown, field: string, fail: (message: string) => Error): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(`${field} must be an object`)
  return value as Record<string, unknown>
}

function instant(value: unknown, field: string, fail: (message: string) => Error): Date {
  if (
    !(value instanceof Date) ||
    Number.isNaN(value.getTime()) ||
    value.getTime() < 0 ||
    value.getTime() > MAX_TIME
  ) {
    throw fail(`${field} must be a valid Date between 1970 and 9999`)
  }
  return new Date(value.getTime())
}

function outboxId(value: unknown, field: string, fail: (message: string) => Error): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw fail(`${field} must be a lower-case UUID`)
  return value
}

function errorCode(value: unknown): string {
  if (typeof value !== 'string' || !ERROR_CODE.test(value)) {
    throw invalidRequest('error must be an error code (1-100 of a-z 0-9 . _ : -), never a message')
  }
  return value
}

/** One entry, validated and copied (frozen). */
export function validateOutboxEntry(value: unknown, field = 'entry'): OutboxEntry {
  const fields = record(value, field, invalidEntry)
  const kind = fields.kind as MailMessageKind
  if (!MAIL_MESSAGE_KINDS.includes(kind)) throw invalidEntry(`${field}.kind must be a mail message kind`)
  const accountId = fields.accountId
  if (
    accountId !== null &&
    (typeof accountId !== 'string' ||
      accountId === '' ||
      accountId.length > 255 ||
      UNSTORABLE.test(accountId))
  ) {
    throw invalidEntry(`${field}.accountId must be null or 1-255 characters without control characters`)
  }
  const envelope = fields.envelope
  if (
    typeof envelope !== 'string' ||
    envelope.length > MAX_OUTBOX_ENVELOPE_LENGTH ||
    !ENVELOPE.test(envelope)
  ) {
    throw invalidEntry(
      `${field}.envelope must be a sealed envelope of at most ${MAX_OUTBOX_ENVELOPE_LENGTH} characters`,
    )
  }
  return Object.freeze({
    id: outboxId(fields.id, `${field}.id`, invalidEntry),
    kind,
    accountId,
    envelope,
    createdAt: instant(fields.createdAt, `${field}.createdAt`, invalidEntry),
  })
}

/**
 * A change request's `outbox` (undefined: none), validated and copied: at most
 * `MAX_OUTBOX_ENTRIES_PER_CHANGE` entries with distinct ids. Stores call it before they change anything.
 */
export function validateOutboxEntries(value: unknown, field = 'outbox'): readonly OutboxEntry[] {
  if (value === undefined) return Object.freeze([])
  if (!Array.isArray(value)) throw invalidEntry(`${field} must be an array of outbox entries`)
  if (value.length > MAX_OUTBOX_ENTRIES_PER_CHANGE) {
    throw invalidEntry(`${field} must hold at most ${MAX_OUTBOX_ENTRIES_PER_CHANGE} entries`)
  }
  const entries = value.map((entry, index) => validateOutboxEntry(entry, `${field}[${index}]`))
  if (new Set(entries.map((entry) => entry.id)).size !== entries.length) {
    throw new InvalidInputError(
      OutboxErrorCodes.duplicateEntry,
      `${field} holds two entries with the same id`,
    )
  }
  return Object.freeze(entries)
}

/** The error a store throws when an entry's id is stored already (nothing of the change is written). */
export function duplicateOutboxEntry(): InvalidInputError {
  return new InvalidInputError(OutboxErrorCodes.duplicateEntry, 'an outbox entry with this id exists already')
}

/** `claim` input, validated and copied. */
export function validateClaimOutbox(request: unknown): ClaimOutboxRequest {
  const fields = record(request, 'request', invalidRequest)
  const { limit, leaseSeconds } = fields
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_OUTBOX_CLAIM) {
    throw invalidRequest(`limit must be an integer from 1 to ${MAX_OUTBOX_CLAIM}`)
  }
  if (
    typeof leaseSeconds !== 'number' ||
    !Number.isInteger(leaseSeconds) ||
    leaseSeconds < 1 ||
    leaseSeconds > MAX_OUTBOX_LEASE_SECONDS
  ) {
    throw invalidRequest(`leaseSeconds must be an integer from 1 to ${MAX_OUTBOX_LEASE_SECONDS}`)
  }
  return { now: instant(fields.now, 'now', invalidRequest), limit, leaseSeconds }
}

/** An outbox id, validated. */
export function validateOutboxId(id: unknown): string {
  return outboxId(id, 'id', invalidRequest)
}

/** `complete` ids, validated (all of them before anything is written) and copied without repeats. */
export function validateOutboxIds(ids: unknown): readonly string[] {
  if (!Array.isArray(ids)) throw invalidRequest('ids must be an array of outbox ids')
  if (ids.length > MAX_OUTBOX_CLAIM) throw invalidRequest(`ids holds at most ${MAX_OUTBOX_CLAIM} ids`)
  return [...new Set(ids.map((id: unknown, index) => outboxId(id, `ids[${index}]`, invalidRequest)))]
}

/** `reschedule` input, validated and copied. */
export function validateRescheduleOutbox(request: unknown): RescheduleOutboxRequest {
  const fields = record(request, 'request', invalidRequest)
  return {
    id: outboxId(fields.id, 'id', invalidRequest),
    nextAttemptAt: instant(fields.nextAttemptAt, 'nextAttemptAt', invalidRequest),
    error: errorCode(fields.error),
  }
}

/** `fail` input, validated and copied. */
export function validateFailOutbox(request: unknown): FailOutboxRequest {
  const fields = record(request, 'request', invalidRequest)
  return {
    id: outboxId(fields.id, 'id', invalidRequest),
    error: errorCode(fields.error),
    now: instant(fields.now, 'now', invalidRequest),
  }
}
