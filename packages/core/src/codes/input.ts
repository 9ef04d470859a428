import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import { invalidCodeInput } from './errors.js'
import type {
  CodeCandidate,
  CodePurpose,
  ConsumeCodeRequest,
  NewOneTimeCode,
  RevokeCodesRequest,
  SweepCodesRequest,
} from './port.js'

// Every store checks a request whole before it writes anything: a bad field is a
// `codes.invalid_input` error and nothing is stored, consumed or deleted. Messages name the field,
// never its value.

export const CODE_PURPOSES: readonly CodePurpose[] = Object.freeze([
  'email-verification',
  'password-reset',
  'email-change',
  'email-change-undo',
  'sign-in',
  'invitation',
])

/** A flow handle: 22 to 64 URL-safe characters (`generateFlowId` makes 22). */
export const FLOW_ID_FORMAT = /^[A-Za-z0-9_-]{22,64}$/
/** A stored digest: base64url HMAC-SHA256 (32 bytes, 43 characters). */
export const CODE_DIGEST_FORMAT = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/
/** Key versions are stored in a 32-bit integer column. */
export const MAX_CODE_KEY_VERSION = 2_147_483_647
export const MAX_CODE_ATTEMPTS = 100
/** The longest lifetime a code may have (the email-change undo lives 7 days). */
export const MAX_CODE_LIFETIME_MS = 31 * 24 * 60 * 60 * 1000
const MAX_ACCOUNT_ID_LENGTH = 255
const MAX_ADDRESS_LENGTH = 254
const MAX_PAYLOAD_LENGTH = 16_384
const MAX_CANDIDATES = 16
export const MAX_SWEEP_LIMIT = 10_000
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

function fieldsOf(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidCodeInput(`${field} must be an object`)
  }
  return value as Record<string, unknown>
}

export function requireFlowId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || !FLOW_ID_FORMAT.test(value)) {
    throw invalidCodeInput(`${field} must be 22 to 64 of A-Z a-z 0-9 - _`)
  }
  return value
}

export function requireCodePurpose(value: unknown, field = 'purpose'): CodePurpose {
  if (typeof value !== 'string' || !CODE_PURPOSES.includes(value as CodePurpose)) {
    throw invalidCodeInput(`${field} must be one of ${CODE_PURPOSES.join(', ')}`)
  }
  return value as CodePurpose
}

export function requireCodeAccountId(value: unknown, field = 'accountId'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value) {
    throw invalidCodeInput(`${field} must be a non-blank string without surrounding whitespace`)
  }
  if (value.length > MAX_ACCOUNT_ID_LENGTH) throw invalidCodeInput(`${field} is too long`)
  return value
}

function requireAddress(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value || CONTROL.test(value)) {
    throw invalidCodeInput('code.address must be a non-blank address without control characters')
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_ADDRESS_LENGTH)
    throw invalidCodeInput('code.address is too long')
  return value
}

export function requireCodeDigest(value: unknown, field = 'digest'): string {
  if (typeof value !== 'string' || !CODE_DIGEST_FORMAT.test(value)) {
    throw invalidCodeInput(`${field} must be a base64url HMAC-SHA256 digest`)
  }
  return value
}

export function requireKeyVersion(value: unknown, field = 'keyVersion'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_CODE_KEY_VERSION) {
    throw invalidCodeInput(`${field} must be an integer from 0 to ${MAX_CODE_KEY_VERSION}`)
  }
  return value
}

export function requireCodeDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw invalidCodeInput(`${field} must be a valid Date`)
  }
  return new Date(value.getTime())
}

function requireIntegerBetween(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidCodeInput(`${field} must be an integer from ${min} to ${max}`)
  }
  return value
}

/** A new code, checked and copied (frozen). */
export function validateNewCode(value: unknown): NewOneTimeCode {
  const code = fieldsOf(value, 'code')
  const accountId = code.accountId === null ? null : requireCodeAccountId(code.accountId, 'code.accountId')
  const payload = code.payload
  if (payload !== null && (typeof payload !== 'string' || payload.length > MAX_PAYLOAD_LENGTH)) {
    throw invalidCodeInput(
      `code.payload must be null or a string of at most ${MAX_PAYLOAD_LENGTH} characters`,
    )
  }
  const copy: NewOneTimeCode = {
    id: requireFlowId(code.id, 'code.id'),
    purpose: requireCodePurpose(code.purpose, 'code.purpose'),
    accountId,
    address: requireAddress(code.address),
    digest: requireCodeDigest(code.digest, 'code.digest'),
    keyVersion: requireKeyVersion(code.keyVersion, 'code.keyVersion'),
    maxAttempts: requireIntegerBetween(code.maxAttempts, 'code.maxAttempts', 1, MAX_CODE_ATTEMPTS),
    createdAt: requireCodeDate(code.createdAt, 'code.createdAt'),
    expiresAt: requireCodeDate(code.expiresAt, 'code.expiresAt'),
    payload: payload as string | null,
  }
  const lifetime = copy.expiresAt.getTime() - copy.createdAt.getTime()
  if (lifetime <= 0) throw invalidCodeInput('code.expiresAt must be after code.createdAt')
  if (lifetime > MAX_CODE_LIFETIME_MS) throw invalidCodeInput('code.expiresAt is more than 31 days away')
  return Object.freeze(copy)
}

/**
 * Outbox entries written with a code, checked as every outbox store checks them (a malformed entry is
 * `mail.invalid_outbox_entry`); none when omitted.
 */
export function validateCodeOutbox(value: unknown): readonly OutboxEntry[] {
  return value === undefined ? [] : validateOutboxEntries(value, 'outbox')
}

export interface ValidIssueRequest {
  readonly code: NewOneTimeCode
  readonly supersede: boolean
  readonly outbox: readonly OutboxEntry[]
}

export function validateIssueRequest(value: unknown): ValidIssueRequest {
  const request = fieldsOf(value, 'request')
  if (request.supersede !== undefined && typeof request.supersede !== 'boolean') {
    throw invalidCodeInput('supersede must be a boolean')
  }
  return {
    code: validateNewCode(request.code),
    supersede: request.supersede !== false,
    outbox: validateCodeOutbox(request.outbox),
  }
}

export function validateConsumeRequest(value: unknown): ConsumeCodeRequest {
  const request = fieldsOf(value, 'request')
  const candidates = request.candidates
  if (!Array.isArray(candidates) || candidates.length === 0 || candidates.length > MAX_CANDIDATES) {
    throw invalidCodeInput(`candidates must hold 1 to ${MAX_CANDIDATES} digests`)
  }
  const versions = new Set<number>()
  const copies = candidates.map((item, index): CodeCandidate => {
    const candidate = fieldsOf(item, `candidates[${index}]`)
    const keyVersion = requireKeyVersion(candidate.keyVersion, `candidates[${index}].keyVersion`)
    if (versions.has(keyVersion)) throw invalidCodeInput('candidates must have distinct key versions')
    versions.add(keyVersion)
    return Object.freeze({
      keyVersion,
      digest: requireCodeDigest(candidate.digest, `candidates[${index}].digest`),
    })
  })
  return Object.freeze({
    id: requireFlowId(request.id),
    purpose: requireCodePurpose(request.purpose),
    candidates: Object.freeze(copies),
    now: requireCodeDate(request.now, 'now'),
  })
}

export function validateRevokeRequest(value: unknown): RevokeCodesRequest {
  const request = fieldsOf(value, 'request')
  const accountId = requireCodeAccountId(request.accountId)
  if (request.purposes === undefined) return Object.freeze({ accountId })
  if (!Array.isArray(request.purposes) || request.purposes.length === 0) {
    throw invalidCodeInput('purposes must be a non-empty array when given')
  }
  const purposes = [...new Set(request.purposes.map((purpose) => requireCodePurpose(purpose, 'purposes[]')))]
  return Object.freeze({ accountId, purposes: Object.freeze(purposes) })
}

export function validateSweepRequest(value: unknown): SweepCodesRequest {
  const request = fieldsOf(value, 'request')
  return Object.freeze({
    now: requireCodeDate(request.now, 'now'),
    limit: requireIntegerBetween(request.limit, 'limit', 1, MAX_SWEEP_LIMIT),
  })
}
