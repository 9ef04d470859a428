import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import {
  associatedData,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import { TotpError, TotpErrorCodes } from '@portcullis/core/totp'
import { Secret, TOTP } from 'otpauth'

/** RFC 6238 as every authenticator app reads it: HMAC-SHA1, 6 digits, 30-second steps. */
export const TOTP_DIGITS = 6
export const TOTP_PERIOD_SECONDS = 30
const ALGORITHM = 'SHA1'
/** 160-bit secrets (RFC 4226 section 4 recommends at least 128, and 160). */
export const TOTP_SECRET_BYTES = 20
const SECRET_PURPOSE = 'portcullis.totp.secret.v1'
const CODE = /^\d{6}$/

/** The associated data of an account's sealed TOTP secret: its purpose and the account id. */
function secretBinding(accountId: string): Uint8Array {
  return associatedData(SECRET_PURPOSE, accountId)
}

export async function sealTotpSecret(
  protector: OAuthTransactionProtector,
  accountId: string,
  secret: Uint8Array,
): Promise<string> {
  try {
    return serializeProtectedEnvelope(await protector.protect(secret, secretBinding(accountId)))
  } catch (cause) {
    throw new TotpError(TotpErrorCodes.unavailable, 'the TOTP secret could not be sealed', { cause })
  }
}

/** Opens a sealed secret; any failure (other account, tampering, unknown key) is `totp.unavailable`. */
export async function openTotpSecret(
  protector: OAuthTransactionProtector,
  accountId: string,
  sealed: string,
): Promise<Uint8Array> {
  try {
    return await protector.unprotect(parseProtectedEnvelope(sealed), secretBinding(accountId))
  } catch (cause) {
    throw new TotpError(TotpErrorCodes.unavailable, 'the TOTP secret could not be opened', { cause })
  }
}

/** A typed code without spaces, or undefined when it is not six digits. */
export function normalizeTotpCode(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 16) return undefined
  const compact = value.replace(/\s/g, '')
  return CODE.test(compact) ? compact : undefined
}

function totp(secret: Uint8Array, label = 'account', issuer = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: new Secret({ buffer: Uint8Array.prototype.slice.call(secret).buffer }),
  })
}

/**
 * The time step a code belongs to when it is valid at `nowMs` within +-`window` steps, or undefined.
 * The comparison is constant-time (otpauth).
 */
export function matchTotpStep(
  secret: Uint8Array,
  code: string,
  nowMs: number,
  window: number,
): number | undefined {
  const generator = totp(secret)
  const delta = generator.validate({ token: code, timestamp: nowMs, window })
  if (delta === null) return undefined
  return generator.counter({ timestamp: nowMs }) + delta
}

/**
 * The code of `secret` (its bytes, or the base32 an enrollment shows) at `nowMs`: what the user's
 * authenticator app shows then (tests and demos use it).
 */
export function totpCodeAt(secret: Uint8Array | string, nowMs: number): string {
  const bytes = typeof secret === 'string' ? Secret.fromBase32(secret).bytes : secret
  return totp(bytes).generate({ timestamp: nowMs })
}

/** The secret in base32 (for typing it into an app) and the `otpauth://totp/...` URI (for the QR code). */
export function totpProvisioning(
  secret: Uint8Array,
  issuer: string,
  label: string,
): { readonly base32: string; readonly uri: string } {
  const generator = totp(secret, label, issuer)
  return { base32: generator.secret.base32, uri: generator.toString() }
}
