import { hash } from 'node:crypto'
import { invalidStepUpInput } from './errors.js'
import type { StepUpRecord } from './store.js'

/** The same purpose syntax `requiresStepUp(purpose)` accepts. */
const PURPOSE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/
const MAX_ACCOUNT_ID_LENGTH = 255
const MAX_SESSION_BINDING_LENGTH = 1024
/** A step-up token: base64url of 32 random bytes. */
export const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/
/** A stored digest: base64url SHA-256. */
export const DIGEST_FORMAT = /^[A-Za-z0-9_-]{43}$/

/** Purpose names such as `oauth-link` or `payments.approve`: 1-128 letters, digits, `.`, `_`, `:` or `-`. */
export function requirePurpose(value: unknown): string {
  if (typeof value !== 'string' || !PURPOSE.test(value)) {
    throw invalidStepUpInput(
      'purpose must be 1-128 letters, digits, ".", "_", ":" or "-", starting alphanumeric',
    )
  }
  return value
}

export function requireAccountId(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value) {
    throw invalidStepUpInput('accountId must be a non-blank string without surrounding whitespace')
  }
  if (value.length > MAX_ACCOUNT_ID_LENGTH) throw invalidStepUpInput('accountId is too long')
  return value
}

/** A security epoch: a non-negative safe integer that grows when credentials must be invalidated. */
export function requireEpoch(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidStepUpInput('securityEpoch must be a non-negative integer')
  }
  return value
}

export function requireSessionBinding(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidStepUpInput('sessionBinding must be non-blank')
  if (value.length > MAX_SESSION_BINDING_LENGTH) throw invalidStepUpInput('sessionBinding is too long')
  return value
}

export function requireDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw invalidStepUpInput(`${field} must be a valid Date`)
  return new Date(value.getTime())
}

/** base64url SHA-256; the token has 256 bits of entropy, so an unpeppered digest cannot be reversed. */
export function digestOf(value: string): string {
  return hash('sha256', value, 'base64url')
}

/** A stored digest (base64url SHA-256), for store implementations. */
export function requireStepUpDigest(value: unknown, field = 'digest'): string {
  if (typeof value !== 'string' || !DIGEST_FORMAT.test(value))
    throw invalidStepUpInput(`${field} must be a digest`)
  return value
}

/**
 * A validated, frozen copy of a record, as every `StepUpStore` must check it before writing: bad fields
 * are `step-up.invalid_input` errors and nothing is stored.
 */
export function validateStepUpRecord(record: unknown): StepUpRecord {
  if (typeof record !== 'object' || record === null) throw invalidStepUpInput('record must be an object')
  const candidate = record as Partial<StepUpRecord>
  const copy: StepUpRecord = {
    digest: requireStepUpDigest(candidate.digest, 'digest'),
    accountId: requireAccountId(candidate.accountId),
    purpose: requirePurpose(candidate.purpose),
    securityEpoch: requireEpoch(candidate.securityEpoch),
    sessionDigest: requireStepUpDigest(candidate.sessionDigest, 'sessionDigest'),
    issuedAt: requireDate(candidate.issuedAt, 'issuedAt'),
    authenticatedAt: requireDate(candidate.authenticatedAt, 'authenticatedAt'),
    expiresAt: requireDate(candidate.expiresAt, 'expiresAt'),
  }
  if (copy.expiresAt.getTime() <= copy.issuedAt.getTime())
    throw invalidStepUpInput('expiresAt must be after issuedAt')
  return Object.freeze(copy)
}

/** A valid `Date` (copied), for store implementations; anything else is `step-up.invalid_input`. */
export const requireStepUpDate: (value: unknown, field: string) => Date = requireDate
