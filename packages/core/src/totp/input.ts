import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import { parseProtectedEnvelope } from '../protection/envelope-format.js'
import { invalidTotpInput } from './errors.js'
import type {
  EnableTotpRequest,
  RedeemRecoveryCodeRequest,
  RemoveTotpOptions,
  ReplaceRecoveryCodesRequest,
  SavePendingTotpRequest,
  UseTotpStepRequest,
} from './store.js'

const MAX_ACCOUNT_ID_LENGTH = 255
const MAX_SEALED_SECRET_LENGTH = 1024
/** The most recovery codes one set may hold. */
export const MAX_RECOVERY_CODES = 20
/** A stored recovery-code digest: `<pepper version>:<base64url HMAC-SHA256>`. */
const RECOVERY_DIGEST = /^[A-Za-z0-9._-]{1,32}:[A-Za-z0-9_-]{43}$/

export function requireTotpAccountId(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value) {
    throw invalidTotpInput('accountId must be a non-blank string without surrounding whitespace')
  }
  if (value.length > MAX_ACCOUNT_ID_LENGTH) throw invalidTotpInput('accountId is too long')
  return value
}

export function requireTotpDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw invalidTotpInput(`${field} must be a valid Date`)
  }
  return new Date(value.getTime())
}

/** A time step: a non-negative safe integer. */
export function requireTotpStep(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidTotpInput('step must be a non-negative integer')
  }
  return value
}

/** A sealed secret: a well-formed protector envelope in its text form. */
export function requireSealedSecret(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_SEALED_SECRET_LENGTH) {
    throw invalidTotpInput('sealedSecret must be a serialized protector envelope')
  }
  try {
    parseProtectedEnvelope(value)
  } catch {
    throw invalidTotpInput('sealedSecret must be a serialized protector envelope')
  }
  return value
}

export function requireRecoveryDigest(value: unknown): string {
  if (typeof value !== 'string' || !RECOVERY_DIGEST.test(value)) {
    throw invalidTotpInput('a recovery-code digest must be <version>:<base64url SHA-256 HMAC>')
  }
  return value
}

function requireDigestList(value: unknown, field: string, min: number): readonly string[] {
  if (!Array.isArray(value) || value.length < min || value.length > MAX_RECOVERY_CODES) {
    throw invalidTotpInput(`${field} must be an array of ${min} to ${MAX_RECOVERY_CODES} digests`)
  }
  const digests = value.map((digest) => requireRecoveryDigest(digest))
  if (new Set(digests).size !== digests.length) throw invalidTotpInput(`${field} holds a digest twice`)
  return Object.freeze(digests)
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw invalidTotpInput('request must be an object')
  return value as Record<string, unknown>
}

export function validateSavePendingTotp(request: SavePendingTotpRequest): SavePendingTotpRequest {
  const fields = record(request)
  return {
    accountId: requireTotpAccountId(fields.accountId),
    sealedSecret: requireSealedSecret(fields.sealedSecret),
    now: requireTotpDate(fields.now, 'now'),
  }
}

export function validateEnableTotp(request: EnableTotpRequest): EnableTotpRequest {
  const fields = record(request)
  return {
    accountId: requireTotpAccountId(fields.accountId),
    sealedSecret: requireSealedSecret(fields.sealedSecret),
    step: requireTotpStep(fields.step),
    recoveryCodeDigests: requireDigestList(fields.recoveryCodeDigests, 'recoveryCodeDigests', 0),
    now: requireTotpDate(fields.now, 'now'),
    outbox: validateOutboxEntries(fields.outbox),
  }
}

export function validateUseTotpStep(request: UseTotpStepRequest): UseTotpStepRequest {
  const fields = record(request)
  return { accountId: requireTotpAccountId(fields.accountId), step: requireTotpStep(fields.step) }
}

export function validateReplaceRecoveryCodes(
  request: ReplaceRecoveryCodesRequest,
): ReplaceRecoveryCodesRequest {
  const fields = record(request)
  return {
    accountId: requireTotpAccountId(fields.accountId),
    digests: requireDigestList(fields.digests, 'digests', 1),
    now: requireTotpDate(fields.now, 'now'),
    outbox: validateOutboxEntries(fields.outbox),
  }
}

export function validateRedeemRecoveryCode(request: RedeemRecoveryCodeRequest): RedeemRecoveryCodeRequest {
  const fields = record(request)
  return {
    accountId: requireTotpAccountId(fields.accountId),
    candidates: requireDigestList(fields.candidates, 'candidates', 1),
  }
}

/** The outbox entries of a `removeTotp` (none when no options are given). */
export function validateRemoveTotpOptions(options: RemoveTotpOptions | undefined): readonly OutboxEntry[] {
  if (options === undefined) return []
  return validateOutboxEntries(record(options).outbox)
}
