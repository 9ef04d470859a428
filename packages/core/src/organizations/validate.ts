import { isNormalizedEmailAddress } from '../accounts/email-address.js'
import { FLOW_ID_FORMAT } from '../codes/input.js'
import type { CodeCandidate } from '../codes/port.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import { invalidOrganizationInput } from './errors.js'
import type { NewInvitation } from './records.js'

// Every store checks a request whole before it reads or writes anything: a bad field is
// `organizations.invalid_input` and nothing changes. Messages name the field, never its value.

/** An organization id: the tenant id of guards and path parameters, one URL-safe segment. */
export const ORGANIZATION_ID_FORMAT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
/** The longest lifetime an invitation may have. */
export const MAX_INVITATION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000
export const MAX_MEMBERS_PAGE = 1000
const MAX_ACCOUNT_ID = 255
const MAX_NAME = 200
const MAX_ROLE = 64
const MAX_CANDIDATES = 16
const MAX_KEY_VERSION = 2_147_483_647
const DIGEST_FORMAT = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

type Fields = Readonly<Record<string, unknown>>

export function fieldsOf(value: unknown, field = 'request'): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidOrganizationInput(`${field} must be an object`)
  }
  return value as Fields
}

export function requireOrganizationId(value: unknown, field = 'organizationId'): string {
  if (typeof value !== 'string' || !ORGANIZATION_ID_FORMAT.test(value)) {
    throw invalidOrganizationInput(`${field} must be 1 to 128 of A-Z a-z 0-9 . _ - (starting alphanumeric)`)
  }
  return value
}

export function requireMemberAccountId(value: unknown, field = 'accountId'): string {
  if (typeof value !== 'string' || value === '' || value.trim() !== value || CONTROL.test(value)) {
    throw invalidOrganizationInput(`${field} must be a trimmed string without control characters`)
  }
  if (value.length > MAX_ACCOUNT_ID) throw invalidOrganizationInput(`${field} is too long`)
  return value
}

export function requireOrganizationName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value || CONTROL.test(value)) {
    throw invalidOrganizationInput(`${field} must be a trimmed, non-blank name without control characters`)
  }
  if (value.length > MAX_NAME)
    throw invalidOrganizationInput(`${field} must be at most ${MAX_NAME} characters`)
  return value
}

export function requireRoleName(value: unknown, field = 'role'): string {
  if (typeof value !== 'string' || value === '' || value.trim() !== value || CONTROL.test(value)) {
    throw invalidOrganizationInput(`${field} must be a role name`)
  }
  if (value.length > MAX_ROLE) throw invalidOrganizationInput(`${field} is too long`)
  return value
}

export function requireNow(value: unknown, field = 'now'): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw invalidOrganizationInput(`${field} must be a valid Date`)
  }
  return new Date(value.getTime())
}

export function requireInvitationId(value: unknown, field = 'invitationId'): string {
  if (typeof value !== 'string' || !FLOW_ID_FORMAT.test(value)) {
    throw invalidOrganizationInput(`${field} must be 22 to 64 of A-Z a-z 0-9 - _`)
  }
  return value
}

export function requireDigest(value: unknown, field = 'digest'): string {
  if (typeof value !== 'string' || !DIGEST_FORMAT.test(value)) {
    throw invalidOrganizationInput(`${field} must be a base64url HMAC-SHA256 digest`)
  }
  return value
}

export function requireKeyVersion(value: unknown, field = 'keyVersion'): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_KEY_VERSION) {
    throw invalidOrganizationInput(`${field} must be an integer from 0 to ${MAX_KEY_VERSION}`)
  }
  return value as number
}

export function requireCandidates(value: unknown): readonly CodeCandidate[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CANDIDATES) {
    throw invalidOrganizationInput(`candidates must be 1 to ${MAX_CANDIDATES} digests`)
  }
  return Object.freeze(
    value.map((candidate, index) => {
      const fields = fieldsOf(candidate, `candidates[${index}]`)
      return Object.freeze({
        keyVersion: requireKeyVersion(fields.keyVersion, `candidates[${index}].keyVersion`),
        digest: requireDigest(fields.digest, `candidates[${index}].digest`),
      })
    }),
  )
}

/** The lifetime of an invitation: after `createdAt`, at most 30 days. */
export function requireExpiry(expiresAt: unknown, from: Date, field = 'expiresAt'): Date {
  const expiry = requireNow(expiresAt, field)
  const lifetime = expiry.getTime() - from.getTime()
  if (lifetime <= 0 || lifetime > MAX_INVITATION_LIFETIME_MS) {
    throw invalidOrganizationInput(`${field} must be after its start and at most 30 days later`)
  }
  return expiry
}

export function requireOutbox(value: unknown): readonly OutboxEntry[] {
  try {
    return validateOutboxEntries(value)
  } catch (error) {
    throw invalidOrganizationInput(error instanceof Error ? error.message : 'outbox is malformed')
  }
}

export function requireNewInvitation(value: unknown): NewInvitation {
  const fields = fieldsOf(value, 'invitation')
  const createdAt = requireNow(fields.createdAt, 'invitation.createdAt')
  if (!isNormalizedEmailAddress(fields.address)) {
    throw invalidOrganizationInput('invitation.address must be a normalized email address')
  }
  return Object.freeze({
    invitationId: requireInvitationId(fields.invitationId, 'invitation.invitationId'),
    organizationId: requireOrganizationId(fields.organizationId, 'invitation.organizationId'),
    address: fields.address,
    role: requireRoleName(fields.role, 'invitation.role'),
    inviterAccountId: requireMemberAccountId(fields.inviterAccountId, 'invitation.inviterAccountId'),
    digest: requireDigest(fields.digest, 'invitation.digest'),
    keyVersion: requireKeyVersion(fields.keyVersion, 'invitation.keyVersion'),
    createdAt,
    expiresAt: requireExpiry(fields.expiresAt, createdAt, 'invitation.expiresAt'),
  })
}

export function requireLimit(value: unknown): number {
  if (value === undefined) return 100
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_MEMBERS_PAGE) {
    throw invalidOrganizationInput(`limit must be an integer from 1 to ${MAX_MEMBERS_PAGE}`)
  }
  return value as number
}
