import { isStrictIdentifier } from '../jwks/strict-identifier.js'
import { isJsonObject, type JsonValue } from '../jwks/strict-json.js'
import type { JsonObject } from '../workload-jwt/compact-jwt.js'

/** Identity-platform (GCIP) identity carried by IAP when it fronts Identity Platform. */
export interface GoogleIapExternalIdentity {
  readonly subject: string
  readonly email?: string
  readonly emailVerified?: boolean
  readonly signInProvider?: string
  readonly tenant?: string
  readonly signInAttributes: Readonly<Record<string, string>>
}

/** The verified claims of an IAP assertion, for the application's identity resolver. */
export interface GoogleIapClaims {
  readonly subject: string
  readonly email?: string
  readonly hostedDomain?: string
  readonly authorizedParty?: string
  readonly accessLevels: readonly string[]
  readonly deviceId?: string
  readonly externalIdentity?: GoogleIapExternalIdentity
  readonly issuedAt: Date
  readonly expiresAt: Date
}

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false }
const ok = <T>(value: T): Read<T> => ({ ok: true, value })
const bad = { ok: false } as const

function optionalText(value: JsonValue | undefined, maxLength = 1024): Read<string | undefined> {
  if (value === undefined) return ok(undefined)
  return isStrictIdentifier(value, maxLength) ? ok(value) : bad
}

function accessLevels(
  google: JsonValue | undefined,
): Read<{ levels: string[]; deviceId: string | undefined }> {
  if (google === undefined) return ok({ levels: [], deviceId: undefined })
  if (!isJsonObject(google)) return bad
  const levels = google.access_levels ?? []
  if (!Array.isArray(levels) || levels.length > 64) return bad
  if (!levels.every((level) => isStrictIdentifier(level, 1024))) return bad
  const deviceId = optionalText(google.device_id)
  if (!deviceId.ok) return bad
  return ok({ levels: levels as string[], deviceId: deviceId.value })
}

function externalIdentity(gcip: JsonValue | undefined): Read<GoogleIapExternalIdentity | undefined> {
  if (gcip === undefined) return ok(undefined)
  if (!isJsonObject(gcip) || !isStrictIdentifier(gcip.sub)) return bad
  const email = optionalText(gcip.email, 320)
  const provider = optionalText(gcip.sign_in_provider)
  const tenant = optionalText(gcip.tenant)
  const verified = gcip.email_verified
  if (!email.ok || !provider.ok || !tenant.ok) return bad
  if (verified !== undefined && typeof verified !== 'boolean') return bad
  const attributes = gcip.sign_in_attributes ?? Object.create(null)
  if (!isJsonObject(attributes)) return bad
  const entries = Object.entries(attributes)
  if (entries.length > 32 || !entries.every(([, value]) => typeof value === 'string' && value.length <= 1024))
    return bad
  return ok({
    subject: gcip.sub,
    signInAttributes: Object.fromEntries(entries) as Record<string, string>,
    ...(email.value === undefined ? {} : { email: email.value }),
    ...(verified === undefined ? {} : { emailVerified: verified }),
    ...(provider.value === undefined ? {} : { signInProvider: provider.value }),
    ...(tenant.value === undefined ? {} : { tenant: tenant.value }),
  })
}

/** Reads IAP's optional claims; any malformed one makes the whole assertion invalid (`undefined`). */
export function readIapClaims(
  payload: JsonObject,
  subject: string,
  issuedAt: number,
  expiresAt: number,
): GoogleIapClaims | undefined {
  const email = optionalText(payload.email, 320)
  const hostedDomain = optionalText(payload.hd, 255)
  const authorizedParty = optionalText(payload.azp)
  const google = accessLevels(payload.google)
  const gcip = externalIdentity(payload.gcip)
  if (!email.ok || !hostedDomain.ok || !authorizedParty.ok || !google.ok || !gcip.ok) return undefined
  return {
    subject,
    accessLevels: google.value.levels,
    issuedAt: new Date(issuedAt * 1000),
    expiresAt: new Date(expiresAt * 1000),
    ...(email.value === undefined ? {} : { email: email.value }),
    ...(hostedDomain.value === undefined ? {} : { hostedDomain: hostedDomain.value }),
    ...(authorizedParty.value === undefined ? {} : { authorizedParty: authorizedParty.value }),
    ...(google.value.deviceId === undefined ? {} : { deviceId: google.value.deviceId }),
    ...(gcip.value === undefined ? {} : { externalIdentity: gcip.value }),
  }
}
