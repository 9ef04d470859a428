import { type EmailAddressNormalization, normalizeEmailAddress } from '../../accounts/email-address.js'
import type { SignInIdentifier } from '../../accounts/email-requests.js'
import type { AccountStore } from '../../accounts/port.js'
import type { PasswordRecord } from '../../accounts/records.js'
import { normalizeUsername } from './username.js'

/** What a sign-in identifier may be read as: a normalized username, a normalized address, or both. */
export interface ReadIdentifier {
  readonly username: string | undefined
  readonly address: string | undefined
}

/**
 * Reads the `username` member of a sign-in under `signInWith`. An identifier that is neither is refused
 * with the rule of what is accepted: `local.invalid_username` when usernames are, otherwise
 * `email.invalid_address`. Nothing here depends on which accounts exist.
 */
export function readIdentifier(
  input: string,
  signInWith: readonly SignInIdentifier[],
  normalization: EmailAddressNormalization,
): ReadIdentifier {
  let username: string | undefined
  let address: string | undefined
  let refusal: unknown
  if (signInWith.includes('email') && input.includes('@')) {
    try {
      address = normalizeEmailAddress(input, normalization)
    } catch (error) {
      refusal = error
    }
  }
  if (signInWith.includes('username')) {
    try {
      username = normalizeUsername(input)
    } catch (error) {
      refusal = error
    }
  }
  if (username === undefined && address === undefined) {
    throw refusal ?? normalizeEmailAddress(input, normalization)
  }
  return { username, address }
}

/**
 * The password record an identifier names, and the key its per-account attempts count under. Every
 * lookup the identifier allows runs, whatever the first finds, so a known and an unknown identifier of
 * one kind cost the same. A verified address wins over the same string as a username. The attempts of a
 * found account count under its username, so its budget is one however it is named.
 */
export async function findByIdentifier(
  accounts: AccountStore,
  identifier: ReadIdentifier,
): Promise<{ readonly record: PasswordRecord | null; readonly throttleKey: string }> {
  const [byAddress, byName] = await Promise.all([
    identifier.address === undefined ? null : accounts.findPassword({ verifiedEmail: identifier.address }),
    identifier.username === undefined ? null : accounts.findPassword({ username: identifier.username }),
  ])
  const record = byAddress ?? byName
  const throttleKey = record?.username ?? identifier.username ?? `email:${identifier.address ?? ''}`
  return { record, throttleKey }
}
