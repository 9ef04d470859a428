/** How an access token was presented in `Authorization`. */
export type PresentedAccessToken =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly scheme: 'bearer' | 'dpop'; readonly token: string }

// RFC 6750 b64token (RFC 9449 section 7.1 uses the same token68 syntax).
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Reads `Authorization: Bearer <token>`, or `Authorization: DPoP <token>` when `dpop` is on: scheme
 * case-insensitive, exactly one space, one token. No header, or another scheme, is `absent`; a header of
 * one of these schemes that breaks the grammar (several values joined by a proxy) is `malformed`.
 */
export function extractAccessToken(value: string | undefined, dpop: boolean): PresentedAccessToken {
  if (value === undefined) return { kind: 'absent' }
  let scheme: 'bearer' | 'dpop'
  let rest: string
  if (/^bearer(?:\s|$)/i.test(value)) {
    scheme = 'bearer'
    rest = value.slice(6)
  } else if (dpop && /^dpop(?:\s|$)/i.test(value)) {
    scheme = 'dpop'
    rest = value.slice(4)
  } else {
    return { kind: 'absent' }
  }
  if (rest.charAt(0) !== ' ') return { kind: 'malformed' }
  const token = rest.slice(1)
  if (!TOKEN.test(token)) return { kind: 'malformed' }
  return { kind: 'token', scheme, token }
}

const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/

/**
 * The token's `cnf` (RFC 7800): `{ kind: 'unbound' }` without one, the `jkt` of a DPoP-bound token, or
 * `unsupported` for any other confirmation (a certificate binding this resource cannot check).
 */
export function confirmationOf(
  payload: Readonly<Record<string, unknown>>,
):
  | { readonly kind: 'unbound' }
  | { readonly kind: 'jkt'; readonly jkt: string }
  | { readonly kind: 'unsupported' } {
  const { cnf } = payload
  if (cnf === undefined) return { kind: 'unbound' }
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) return { kind: 'unsupported' }
  const jkt = (cnf as Record<string, unknown>).jkt
  if (Object.keys(cnf).length !== 1 || typeof jkt !== 'string' || !THUMBPRINT.test(jkt)) {
    return { kind: 'unsupported' }
  }
  return { kind: 'jkt', jkt }
}
