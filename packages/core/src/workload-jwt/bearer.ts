export type BearerExtraction =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string }

// RFC 6750 b64token.
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Reads `Authorization: Bearer <token>`: scheme case-insensitive, exactly one space, one b64token.
 * No header, or another scheme (`Basic ...`), is `absent`: not this mechanism's credential. A Bearer
 * header that breaks the grammar (extra spaces, several values joined by a proxy, non-ASCII) is `malformed`.
 */
export function extractBearer(value: string | undefined): BearerExtraction {
  if (value === undefined) return { kind: 'absent' }
  if (!/^bearer(?:\s|$)/i.test(value)) return { kind: 'absent' }
  if (value.charAt(6) !== ' ') return { kind: 'malformed' }
  const token = value.slice(7)
  if (!TOKEN.test(token)) return { kind: 'malformed' }
  return { kind: 'token', token }
}
