/**
 * What a revocation notice names. Every instance drops what it names from every cache it holds:
 * - `session`: the session with this id digest ended (sign-out, revoked by handle, id rotation, stale epoch);
 * - `account`: the account's security state moved (epoch bump, password change or reset, sign-out
 *   everywhere, account deleted): its cached epoch and every cached session of it are dropped;
 * - `refresh-family`: a refresh-token family was revoked (sign-out of a token sign-in, reuse detected);
 * - `api-key`: the API key with this id was revoked or rotated out;
 * - `grant`: an authorization-server grant ended (a client disconnected, a refresh token reused): every
 *   access token issued under it is refused;
 * - `membership`: the account's organization memberships changed (removed, role changed, joined, the
 *   organization deleted): every cached membership of it is dropped.
 * None of these values is a secret: a session is named by the digest the store keys it by, never its id.
 */
export type RevocationNotice =
  | { readonly kind: 'session'; readonly digest: string }
  | { readonly kind: 'account'; readonly accountId: string }
  | { readonly kind: 'refresh-family'; readonly familyId: string }
  | { readonly kind: 'api-key'; readonly keyId: string }
  | { readonly kind: 'grant'; readonly grantId: string }
  | { readonly kind: 'membership'; readonly accountId: string }

/** The kinds of notice, in the order of the union. */
export type RevocationNoticeKind = RevocationNotice['kind']

/** The longest identifier a notice carries (the stores' own bound on ids and digests). */
export const MAX_NOTICE_IDENTIFIER_LENGTH = 255

const PREFIX: Record<RevocationNoticeKind, string> = {
  session: 's',
  account: 'a',
  'refresh-family': 'f',
  'api-key': 'k',
  grant: 'g',
  membership: 'm',
}

const KIND_OF_PREFIX: Readonly<Record<string, RevocationNoticeKind>> = Object.freeze({
  s: 'session',
  a: 'account',
  f: 'refresh-family',
  k: 'api-key',
  g: 'grant',
  m: 'membership',
})

const UNSENDABLE = /[\p{Cc}\p{Cs}]/u

function identifierOf(notice: RevocationNotice): string {
  switch (notice.kind) {
    case 'session':
      return notice.digest
    case 'account':
      return notice.accountId
    case 'refresh-family':
      return notice.familyId
    case 'api-key':
      return notice.keyId
    case 'grant':
      return notice.grantId
    case 'membership':
      return notice.accountId
  }
}

function isIdentifier(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_NOTICE_IDENTIFIER_LENGTH &&
    !UNSENDABLE.test(value)
  )
}

/** A frozen, checked copy of a notice; undefined for anything that is not one. */
export function revocationNotice(value: unknown): RevocationNotice | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const fields = value as Record<string, unknown>
  switch (fields.kind) {
    case 'session':
      return isIdentifier(fields.digest)
        ? Object.freeze({ kind: 'session', digest: fields.digest })
        : undefined
    case 'account':
      return isIdentifier(fields.accountId)
        ? Object.freeze({ kind: 'account', accountId: fields.accountId })
        : undefined
    case 'refresh-family':
      return isIdentifier(fields.familyId)
        ? Object.freeze({ kind: 'refresh-family', familyId: fields.familyId })
        : undefined
    case 'api-key':
      return isIdentifier(fields.keyId) ? Object.freeze({ kind: 'api-key', keyId: fields.keyId }) : undefined
    case 'grant':
      return isIdentifier(fields.grantId)
        ? Object.freeze({ kind: 'grant', grantId: fields.grantId })
        : undefined
    case 'membership':
      return isIdentifier(fields.accountId)
        ? Object.freeze({ kind: 'membership', accountId: fields.accountId })
        : undefined
    default:
      return undefined
  }
}

/**
 * The wire form of a notice (a Postgres `NOTIFY` payload, say): one letter for the kind, a colon, the
 * identifier. At most 257 characters, far below the 8000-byte `NOTIFY` limit.
 */
export function encodeRevocationNotice(notice: RevocationNotice): string {
  const checked = revocationNotice(notice)
  if (checked === undefined) throw new TypeError('not a revocation notice')
  return `${PREFIX[checked.kind]}:${identifierOf(checked)}`
}

/** The prefix of the wire form of every notice of this kind (`s:` for sessions, ...). */
export function revocationNoticePrefix(kind: RevocationNoticeKind): string {
  return `${PREFIX[kind]}:`
}

/**
 * A notice read back from its wire form, or undefined when the payload is not one (another version's
 * kind, a foreign writer on the channel). Receivers treat an unreadable payload as "something may have
 * been revoked" and drop everything cached: failing safe costs reads, never a stale answer.
 */
export function decodeRevocationNotice(payload: string): RevocationNotice | undefined {
  if (typeof payload !== 'string' || payload.length < 3 || payload[1] !== ':') return undefined
  const kind = KIND_OF_PREFIX[payload[0] as string]
  if (kind === undefined) return undefined
  const identifier = payload.slice(2)
  switch (kind) {
    case 'session':
      return revocationNotice({ kind, digest: identifier })
    case 'account':
      return revocationNotice({ kind, accountId: identifier })
    case 'refresh-family':
      return revocationNotice({ kind, familyId: identifier })
    case 'api-key':
      return revocationNotice({ kind, keyId: identifier })
    case 'grant':
      return revocationNotice({ kind, grantId: identifier })
    case 'membership':
      return revocationNotice({ kind, accountId: identifier })
  }
}
