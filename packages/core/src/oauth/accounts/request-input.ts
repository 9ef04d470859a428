import { normalizeEmailAddress } from '../../accounts/email-address.js'
import type { OutboxEntry } from '../../mail/outbox.js'
import { validateOutboxEntries } from '../../mail/outbox-input.js'
import { invalidInput } from './errors.js'
import { requireId, requireInstant, requireIssuer, requireOptionalInstant, requireScopes } from './input.js'
import type { ProviderGrant, ProviderIdentity, RevocationTokenType } from './records.js'
import { ProviderTokenSet } from './token-set.js'

/**
 * What a link records of the provider's email: the address normalized (`normalizeEmailAddress`) and
 * whether the provider said it verified it; both null when the provider sent none or one that does not
 * normalize. Informational: it never links, matches or signs in anyone.
 */
export function providerEmailOf(candidate: Partial<ProviderIdentity>): {
  readonly email: string | null
  readonly emailVerified: boolean | null
} {
  if (candidate.email === undefined) return { email: null, emailVerified: null }
  try {
    return { email: normalizeEmailAddress(candidate.email), emailVerified: candidate.emailVerified === true }
  } catch {
    return { email: null, emailVerified: null }
  }
}

/** The exact identity triple, for the store's own provider only, and what the link records of its email. */
export function requireIdentity(
  identity: unknown,
  provider: string,
): {
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly emailVerified: boolean | null
} {
  if (typeof identity !== 'object' || identity === null) throw invalidInput('identity must be an object')
  const candidate = identity as Partial<ProviderIdentity>
  const identityProvider = requireId(candidate.provider, 'identity provider')
  if (identityProvider !== provider) throw invalidInput('identity belongs to another provider')
  return {
    issuer: requireIssuer(candidate.issuer),
    subject: requireId(candidate.subject, 'identity subject'),
    ...providerEmailOf(candidate),
  }
}

export function requireGrant(grant: unknown): ProviderGrant {
  if (typeof grant !== 'object' || grant === null) throw invalidInput('grant must be an object')
  const candidate = grant as { scopes?: unknown; expiresAt?: unknown }
  return Object.freeze({
    scopes: requireScopes(candidate.scopes, 'grant scopes'),
    expiresAt: requireOptionalInstant(candidate.expiresAt, 'grant expiresAt'),
  })
}

export function optionalTokenSet(tokens: unknown): ProviderTokenSet | null {
  if (tokens === undefined) return null
  return requireTokenSet(tokens)
}

export function requireTokenSet(tokens: unknown): ProviderTokenSet {
  if (!(tokens instanceof ProviderTokenSet)) throw invalidInput('tokens must be a ProviderTokenSet')
  return tokens
}

export function requireNow(now: unknown, field = 'now'): Date {
  if (!(now instanceof Date)) throw invalidInput(`${field} must be a Date`)
  return requireInstant(now, field)
}

const TOKEN_TYPE_ORDER: readonly RevocationTokenType[] = ['refresh_token', 'access_token']

/** Non-empty, known, unique token types, returned refresh token first; each must exist in `tokens`. */
export function requireFailedTokenTypes(
  value: unknown,
  tokens: ProviderTokenSet,
): readonly RevocationTokenType[] {
  if (!Array.isArray(value) || value.length === 0)
    throw invalidInput('failedTokenTypes must be a non-empty array')
  const seen = new Set<unknown>(value)
  if (
    seen.size !== value.length ||
    ![...seen].every((type) => TOKEN_TYPE_ORDER.includes(type as RevocationTokenType))
  ) {
    throw invalidInput('failedTokenTypes must hold distinct values among refresh_token and access_token')
  }
  if (seen.has('refresh_token') && tokens.refreshToken === null) {
    throw invalidInput('failedTokenTypes names a refresh token the token set does not have')
  }
  return Object.freeze(TOKEN_TYPE_ORDER.filter((type) => seen.has(type)))
}

/**
 * The `outbox` of a `link` or `unlink` request (none when absent), validated and copied before anything
 * changes: the security notifications the store writes in the change's transaction.
 */
export function optionalOutbox(value: unknown): readonly OutboxEntry[] {
  return validateOutboxEntries(value)
}
