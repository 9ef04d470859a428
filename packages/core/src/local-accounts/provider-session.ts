import { createHash } from 'node:crypto'

/**
 * The identity-provider session a local session was established from (an OIDC sign-in): the ID token's
 * issuer, subject and, when the provider sends one, its `sid`. `VerifiedProviderIdentity` has this shape.
 */
export interface ProviderSession {
  readonly issuer: string
  readonly subject: string
  /** The ID token's `sid` claim. */
  readonly sessionId?: string | undefined
}

/** What a back-channel logout names: the issuer, and its `sub`, its `sid` or both. */
export interface ProviderSessionMatch {
  readonly issuer: string
  readonly subject?: string | undefined
  readonly sessionId?: string | undefined
}

/** Characters of one tag: 66 bits of SHA-256, base64url. */
export const HANDLE_TAG_LENGTH = 11

function tag(kind: 'sub' | 'sid', issuer: string, value: string): string {
  return createHash('sha256')
    .update(`portcullis.provider-session.${kind}\u0000${issuer}\u0000${value}`, 'utf8')
    .digest('base64url')
    .slice(0, HANDLE_TAG_LENGTH)
}

/**
 * The tags a session handle starts with when the session comes from an identity-provider sign-in: one
 * for the provider's subject and one for its session (`sid`), so a back-channel logout can name the
 * local sessions of that subject or that provider session without any other index. The tags are
 * digests (the handle shows neither the subject nor the `sid`); a sign-in without `sid` gets a random
 * second tag, which no logout can name by `sid`.
 */
export function providerSessionTags(
  session: ProviderSession,
  random: (size: number) => Uint8Array,
): string[] {
  const sid =
    session.sessionId === undefined
      ? Buffer.from(random(9)).toString('base64url').slice(0, HANDLE_TAG_LENGTH)
      : tag('sid', session.issuer, session.sessionId)
  return [tag('sub', session.issuer, session.subject), sid]
}

/** The tags a handle must all contain to match a back-channel logout; empty when it names nothing. */
export function providerSessionMatchTags(match: ProviderSessionMatch): string[] {
  const tags: string[] = []
  if (match.subject !== undefined) tags.push(tag('sub', match.issuer, match.subject))
  if (match.sessionId !== undefined) tags.push(tag('sid', match.issuer, match.sessionId))
  return tags
}

/**
 * Whether a session handle carries each of `tags` in one of its two tag slots (its first two
 * 11-character runs, where `providerSessionTags` puts them): what `revoke({ handleTags })` matches.
 */
export function handleCarriesTags(handle: string, tags: readonly string[]): boolean {
  const slots = [handle.slice(0, HANDLE_TAG_LENGTH), handle.slice(HANDLE_TAG_LENGTH, 2 * HANDLE_TAG_LENGTH)]
  return tags.every((tag) => slots.includes(tag))
}
