import { isJsonObject, type JsonValue, parseStrictJson } from '../jwks/strict-json.js'

export type JsonObject = { readonly [member: string]: JsonValue }

export interface CompactJwt {
  readonly header: JsonObject
  readonly payload: JsonObject
}

export type CompactJwtParse =
  | { readonly ok: true; readonly jwt: CompactJwt }
  | { readonly ok: false; readonly reason: string }

const SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
const MAX_JSON_DEPTH = 32
const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Structural checks before any cryptography: at most `maxBytes`, exactly three non-empty base64url
 * segments in canonical form (no padding, no stray low bits, so one token has one spelling), and a header
 * and payload that are strict JSON objects (no duplicate members such as two `kid`s). `knownHeader` may
 * answer the parse of a header segment that passed these checks before (a cache of them): that segment is
 * then not decoded again.
 */
export function parseCompactJwt(
  token: string,
  maxBytes: number,
  knownHeader?: (encodedHeader: string) => JsonObject | undefined,
): CompactJwtParse {
  if (token.length > maxBytes) return { ok: false, reason: 'jwt.oversized' }
  if (!SHAPE.test(token)) return { ok: false, reason: 'jwt.malformed' }
  const [encodedHeader = '', encodedPayload = '', encodedSignature = ''] = token.split('.')
  const known = knownHeader?.(encodedHeader)
  const header = known === undefined ? decodeSegment(encodedHeader) : ''
  const payload = decodeSegment(encodedPayload)
  if (header === undefined || payload === undefined || !isCanonical(encodedSignature)) {
    return { ok: false, reason: 'jwt.non_canonical' }
  }
  const parsedHeader = known ?? parseObject(header)
  const parsedPayload = parseObject(payload)
  if (parsedHeader === undefined) return { ok: false, reason: 'jwt.bad_header' }
  if (parsedPayload === undefined) return { ok: false, reason: 'jwt.bad_payload' }
  return { ok: true, jwt: { header: parsedHeader, payload: parsedPayload } }
}

function isCanonical(segment: string): boolean {
  return Buffer.from(segment, 'base64url').toString('base64url') === segment
}

function decodeSegment(segment: string): string | undefined {
  const bytes = Buffer.from(segment, 'base64url')
  if (bytes.toString('base64url') !== segment) return undefined
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

function parseObject(text: string): JsonObject | undefined {
  try {
    const value = parseStrictJson(text, MAX_JSON_DEPTH)
    return isJsonObject(value) ? value : undefined
  } catch {
    return undefined
  }
}
