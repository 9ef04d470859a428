import { ConfigurationError } from '../errors/portcullis-error.js'
import { confirmationRefused } from './errors.js'
import type { VerifiedProviderIdentity } from './provider-types.js'

/** What one purpose demands of a provider reauthentication. */
export interface OIDCReauthenticationRequirement {
  /**
   * OIDC `max_age` in seconds, 0..600, at most the step-up credential lifetime. 0 forces authentication
   * at the provider (`prompt=login` is sent too) and requires a signed `auth_time` no earlier than the
   * start of this reauthentication; otherwise `now - auth_time <= maxAge` (each with the allowed skew).
   */
  readonly maxAge: number
  /** Sent as `acr_values`; the returned `acr` must be one of them. */
  readonly acrValues?: readonly string[]
  /** Every value must appear in the returned `amr`. */
  readonly amrValues?: readonly string[]
}

/** Purpose -> requirements. Only purposes listed here can be reauthenticated for. */
export type OIDCReauthenticationPolicy = Readonly<Record<string, OIDCReauthenticationRequirement>>

const PURPOSE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/
const VALUE = /^[\x21-\x7e]{1,256}$/

function refuse(message: string): ConfigurationError {
  return new ConfigurationError('oidc.reauthentication.policy_invalid', message)
}

function values(list: unknown, what: string): readonly string[] {
  if (list === undefined) return Object.freeze([])
  if (
    !Array.isArray(list) ||
    list.length > 16 ||
    !list.every((item) => typeof item === 'string' && VALUE.test(item))
  ) {
    throw refuse(`${what} must be at most 16 visible-ASCII strings`)
  }
  return Object.freeze([...new Set(list as string[])])
}

/** Validates a policy at startup; `maxAge` may not exceed the step-up lifetime (the credential would be stale). */
export function validateReauthenticationPolicy(
  policy: unknown,
  stepUpTtlSeconds: number,
): ReadonlyMap<string, Required<OIDCReauthenticationRequirement>> {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw refuse('reauthentication must map purposes to requirements')
  }
  const result = new Map<string, Required<OIDCReauthenticationRequirement>>()
  for (const [purpose, requirement] of Object.entries(policy)) {
    if (!PURPOSE.test(purpose)) throw refuse('purpose names must be 1-128 of A-Z a-z 0-9 . _ : -')
    const { maxAge, acrValues, amrValues, ...rest } = (requirement ?? {}) as Record<string, unknown>
    if (Object.keys(rest).length > 0) throw refuse('a requirement has only maxAge, acrValues and amrValues')
    if (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0 || maxAge > 600) {
      throw refuse('maxAge must be an integer from 0 to 600')
    }
    if (maxAge > stepUpTtlSeconds) throw refuse('maxAge must not exceed the step-up credential lifetime')
    result.set(
      purpose,
      Object.freeze({
        maxAge,
        acrValues: values(acrValues, 'acrValues'),
        amrValues: values(amrValues, 'amrValues'),
      }),
    )
  }
  return result
}

/**
 * Checks the verified identity of a reauthentication callback against the purpose's requirements.
 * Throws `oidc.confirmation.refused` with reason `auth-time-missing`, `auth-time-future`,
 * `auth-time-stale`, `acr-not-satisfied` or `amr-not-satisfied`.
 */
export function checkReauthentication(
  identity: VerifiedProviderIdentity,
  requirement: Required<OIDCReauthenticationRequirement>,
  timing: { readonly startedAt: Date; readonly now: Date; readonly skewSeconds: number },
): void {
  if (identity.authTime === undefined) throw confirmationRefused('auth-time-missing')
  const authTime = Math.floor(identity.authTime.getTime() / 1000)
  const now = timing.now.getTime() / 1000
  const skew = timing.skewSeconds
  if (authTime > now + skew) throw confirmationRefused('auth-time-future')
  if (requirement.maxAge === 0) {
    if (authTime < Math.floor(timing.startedAt.getTime() / 1000) - skew)
      throw confirmationRefused('auth-time-stale')
  } else if (now - authTime > requirement.maxAge + skew) {
    throw confirmationRefused('auth-time-stale')
  }
  if (
    requirement.acrValues.length > 0 &&
    (identity.acr === undefined || !requirement.acrValues.includes(identity.acr))
  ) {
    throw confirmationRefused('acr-not-satisfied')
  }
  for (const value of requirement.amrValues) {
    if (!identity.amr.includes(value)) throw confirmationRefused('amr-not-satisfied')
  }
}
