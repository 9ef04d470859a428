import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import { invalidPasskeyInput } from './errors.js'
import type { PasskeyChallenge, PasskeyCredential } from './records.js'
import type {
  PasskeyAccountRequest,
  PasskeyChallengeKey,
  PasskeyChangeOptions,
  RecordPasskeyUseRequest,
} from './store.js'

const BASE64URL = /^[A-Za-z0-9_-]+$/
/** A credential id: base64url of 16 to 1023 bytes (WebAuthn allows up to 1023). */
const MAX_CREDENTIAL_ID_LENGTH = 1364
const DIGEST = /^[A-Za-z0-9_-]{43}$/
const TRANSPORT = /^[a-z-]{1,32}$/
const PURPOSE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

function fields(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw invalidPasskeyInput('request must be an object')
  return value as Record<string, unknown>
}

export function requirePasskeyAccountId(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value || value.length > 255) {
    throw invalidPasskeyInput('accountId must be a non-blank string of at most 255 characters')
  }
  return value
}

export function requireCredentialId(value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.length < 22 ||
    value.length > MAX_CREDENTIAL_ID_LENGTH ||
    !BASE64URL.test(value)
  ) {
    throw invalidPasskeyInput('credentialId must be base64url of 16 to 1023 bytes')
  }
  return value
}

export function requirePasskeyDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw invalidPasskeyInput(`${field} must be a valid Date`)
  return new Date(value.getTime())
}

function optionalDate(value: unknown, field: string): Date | null {
  return value === null ? null : requirePasskeyDate(value, field)
}

function counter(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 0xffffffff) {
    throw invalidPasskeyInput(`${field} must be an unsigned 32-bit integer`)
  }
  return value
}

/** A passkey name: 1-64 characters, no control characters, no surrounding spaces. */
export function requirePasskeyName(value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.trim() !== value ||
    value.length < 1 ||
    value.length > 64 ||
    /\p{Cc}/u.test(value)
  ) {
    throw invalidPasskeyInput('name must be 1-64 characters without control characters or surrounding spaces')
  }
  return value
}

export function validatePasskeyCredential(value: PasskeyCredential): PasskeyCredential {
  const f = fields(value)
  if (!(f.publicKey instanceof Uint8Array) || f.publicKey.byteLength < 16 || f.publicKey.byteLength > 2048) {
    throw invalidPasskeyInput('publicKey must be 16 to 2048 bytes')
  }
  if (
    !Array.isArray(f.transports) ||
    f.transports.length > 8 ||
    !f.transports.every((t) => typeof t === 'string' && TRANSPORT.test(t))
  ) {
    throw invalidPasskeyInput('transports must be at most 8 transport names')
  }
  if (f.deviceType !== 'singleDevice' && f.deviceType !== 'multiDevice') {
    throw invalidPasskeyInput('deviceType must be singleDevice or multiDevice')
  }
  if (typeof f.backedUp !== 'boolean') throw invalidPasskeyInput('backedUp must be a boolean')
  return Object.freeze({
    credentialId: requireCredentialId(f.credentialId),
    accountId: requirePasskeyAccountId(f.accountId),
    publicKey: new Uint8Array(f.publicKey),
    counter: counter(f.counter, 'counter'),
    transports: Object.freeze([...(f.transports as string[])]),
    deviceType: f.deviceType,
    backedUp: f.backedUp,
    name: requirePasskeyName(f.name),
    createdAt: requirePasskeyDate(f.createdAt, 'createdAt'),
    lastUsedAt: optionalDate(f.lastUsedAt, 'lastUsedAt'),
    suspendedAt: optionalDate(f.suspendedAt, 'suspendedAt'),
  })
}

export function validateRecordPasskeyUse(value: RecordPasskeyUseRequest): RecordPasskeyUseRequest {
  const f = fields(value)
  const expectedCounter = counter(f.expectedCounter, 'expectedCounter')
  const next = counter(f.counter, 'counter')
  if (!(next > expectedCounter || (next === 0 && expectedCounter === 0))) {
    throw invalidPasskeyInput('counter must move forward (or stay 0 when both are 0)')
  }
  if (typeof f.backedUp !== 'boolean') throw invalidPasskeyInput('backedUp must be a boolean')
  return {
    credentialId: requireCredentialId(f.credentialId),
    expectedCounter,
    counter: next,
    backedUp: f.backedUp,
    now: requirePasskeyDate(f.now, 'now'),
  }
}

export function validatePasskeyAccountRequest(value: PasskeyAccountRequest): PasskeyAccountRequest {
  const f = fields(value)
  return {
    accountId: requirePasskeyAccountId(f.accountId),
    credentialId: requireCredentialId(f.credentialId),
  }
}

export function requireChallengeDigest(value: unknown, field: string): string {
  if (typeof value !== 'string' || !DIGEST.test(value))
    throw invalidPasskeyInput(`${field} must be a base64url SHA-256 digest`)
  return value
}

export function validatePasskeyChallengeKey(value: PasskeyChallengeKey): PasskeyChallengeKey {
  const f = fields(value)
  return {
    challengeDigest: requireChallengeDigest(f.challengeDigest, 'challengeDigest'),
    bindingDigest: requireChallengeDigest(f.bindingDigest, 'bindingDigest'),
  }
}

export function validatePasskeyChallenge(value: PasskeyChallenge): PasskeyChallenge {
  const f = fields(value)
  if (f.ceremony !== 'registration' && f.ceremony !== 'authentication') {
    throw invalidPasskeyInput('ceremony must be registration or authentication')
  }
  if (f.purpose !== null && (typeof f.purpose !== 'string' || !PURPOSE.test(f.purpose))) {
    throw invalidPasskeyInput('purpose must be null or a step-up purpose name')
  }
  const createdAt = requirePasskeyDate(f.createdAt, 'createdAt')
  const expiresAt = requirePasskeyDate(f.expiresAt, 'expiresAt')
  if (expiresAt.getTime() <= createdAt.getTime())
    throw invalidPasskeyInput('expiresAt must be after createdAt')
  return Object.freeze({
    ...validatePasskeyChallengeKey(value),
    ceremony: f.ceremony,
    accountId: f.accountId === null ? null : requirePasskeyAccountId(f.accountId),
    sessionDigest: f.sessionDigest === null ? null : requireChallengeDigest(f.sessionDigest, 'sessionDigest'),
    purpose: f.purpose as string | null,
    createdAt,
    expiresAt,
  })
}

/** The outbox entries of an `addPasskey` or `removePasskey` (none when no options are given). */
export function validatePasskeyChangeOptions(
  options: PasskeyChangeOptions | undefined,
): readonly OutboxEntry[] {
  if (options === undefined) return []
  if (typeof options !== 'object' || options === null) throw invalidPasskeyInput('options must be an object')
  return validateOutboxEntries((options as { readonly outbox?: unknown }).outbox)
}
