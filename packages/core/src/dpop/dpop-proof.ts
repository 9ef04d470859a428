import { createHash } from 'node:crypto'
import type { JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { isJsonObject } from '../jwks/strict-json.js'
import { type JsonObject, parseCompactJwt } from '../workload-jwt/compact-jwt.js'
import { type PublicJwk, proofKeys, thumbprintOf, verifySignature } from './proof-key.js'

/** Members that only a private (or symmetric) JWK has: a proof carrying one is refused. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const
const JTI = /^[\x21-\x7e]{1,256}$/
const MAX_PROOF_BYTES = 8192

/** What one request expects of its DPoP proof (RFC 9449 section 4.3). */
export interface DPoPProofExpectations {
  /** The request method, upper case. */
  readonly method: string
  /** Accepted `htu` values, normalised by `normalizeHtu` (the request's public URL(s) without query). */
  readonly urls: ReadonlySet<string>
  /** The presented access token (checked against `ath`). */
  readonly accessToken: string
  readonly algorithms: ReadonlySet<JWKSAlgorithm>
  /** Seconds since the epoch. */
  readonly now: number
  /** Oldest accepted `iat`: `now - maxAgeSeconds - clockSkewSeconds`. */
  readonly maxAgeSeconds: number
  /** Newest accepted `iat`: `now + clockSkewSeconds`. */
  readonly clockSkewSeconds: number
}

/** A proof whose structure, key, signature and claims verified (replay and nonce are checked after). */
export interface VerifiedDPoPProof {
  /** RFC 7638 SHA-256 thumbprint of the proof key, base64url. */
  readonly thumbprint: string
  readonly jti: string
  readonly iat: number
  readonly nonce: string | undefined
}

export type DPoPProofVerification =
  | { readonly ok: true; readonly proof: VerifiedDPoPProof }
  | { readonly ok: false; readonly reason: string }

const refuse = (reason: string): DPoPProofVerification => ({ ok: false, reason })

/** A bounded memo of a pure function of a string (cleared when full, so a flood of new inputs costs memory once). */
function memo<T>(capacity: number, compute: (input: string) => T): (input: string) => T {
  const answers = new Map<string, T>()
  return (input) => {
    if (answers.has(input)) return answers.get(input) as T
    const answer = compute(input)
    if (answers.size >= capacity) answers.clear()
    answers.set(input, answer)
    return answer
  }
}

/**
 * A client signs every proof with the same header (`typ`, `alg`, `jwk`): the parse of a header segment
 * that parsed before, and its key's thumbprint, by the encoded segment (bounded). Only the parse is kept:
 * every check of the header runs on every proof.
 */
interface KnownHeader {
  readonly header: JsonObject
  /** The header's public key and thumbprint for its `alg`, or why it is refused. */
  readonly jwk: PublicJwk | string
}
const knownHeaders = new Map<string, KnownHeader>()
const KNOWN_HEADERS = 10_000
const headerOf = (encodedHeader: string): JsonObject | undefined => knownHeaders.get(encodedHeader)?.header

function keyOf(proof: string, header: JsonObject): PublicJwk | string {
  const encodedHeader = proof.slice(0, proof.indexOf('.'))
  const known = knownHeaders.get(encodedHeader)
  if (known !== undefined && known.header === header) return known.jwk
  const jwk = publicJwk(header)
  if (knownHeaders.size >= KNOWN_HEADERS) knownHeaders.clear()
  knownHeaders.set(encodedHeader, { header, jwk })
  return jwk
}

/**
 * `htu` in the form compared: scheme and host lower case, default port dropped, path with dot segments
 * removed and percent-encoding normalised by the WHATWG URL parser, without query or fragment
 * (RFC 9449 section 4.3, RFC 3986 section 6). Undefined for anything that is not an absolute http(s) URL.
 */
export function normalizeHtu(value: string): string | undefined {
  return value.length > 4096 ? undefined : normalizedHtu(value)
}

/** The URL parse of `normalizeHtu`, remembered: clients send the same few `htu` values again and again. */
const normalizedHtu = memo(4096, (value: string): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  if (url.username !== '' || url.password !== '') return undefined
  return `${url.protocol}//${url.host}${url.pathname}`
})

/** base64url(SHA-256(token)): the `ath` claim of a proof presented with `token`. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url')
}

/** The public key in the header, or why it is refused. */
function publicJwk(header: JsonObject): PublicJwk | string {
  const { jwk } = header
  if (!isJsonObject(jwk)) return 'dpop.missing_jwk'
  for (const member of PRIVATE_MEMBERS) if (Object.hasOwn(jwk, member)) return 'dpop.private_key_in_jwk'
  if (jwk.alg !== undefined && jwk.alg !== header.alg) return 'dpop.bad_jwk'
  return thumbprintOf(jwk, header.alg as JWKSAlgorithm) ?? 'dpop.bad_jwk'
}

function checkHeader(header: JsonObject, algorithms: ReadonlySet<string>): string | undefined {
  if (header.typ !== 'dpop+jwt') return 'dpop.bad_typ'
  if (typeof header.alg !== 'string' || !algorithms.has(header.alg)) return 'dpop.algorithm_not_allowed'
  for (const name of ['jku', 'x5u', 'x5c', 'crit', 'b64']) {
    if (Object.hasOwn(header, name)) return 'dpop.forbidden_header'
  }
  return undefined
}

function checkClaims(payload: JsonObject, expected: DPoPProofExpectations): string | undefined {
  const { jti, htm, htu, iat, ath, nonce } = payload
  if (typeof jti !== 'string' || !JTI.test(jti)) return 'dpop.bad_jti'
  if (htm !== expected.method) return 'dpop.htm_mismatch'
  if (typeof htu !== 'string') return 'dpop.htu_mismatch'
  const url = normalizeHtu(htu)
  if (url === undefined || !expected.urls.has(url)) return 'dpop.htu_mismatch'
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'dpop.bad_iat'
  if (iat > expected.now + expected.clockSkewSeconds) return 'dpop.iat_in_future'
  if (iat < expected.now - expected.maxAgeSeconds - expected.clockSkewSeconds) return 'dpop.iat_too_old'
  if (typeof ath !== 'string' || ath !== accessTokenHash(expected.accessToken)) return 'dpop.ath_mismatch'
  if (nonce !== undefined && (typeof nonce !== 'string' || nonce.length > 256)) return 'dpop.bad_nonce'
  return undefined
}

/**
 * Verifies a DPoP proof JWT (RFC 9449 section 4.3) except for `jti` replay and the server nonce, which
 * need state: structure, `typ: dpop+jwt`, an allow-listed asymmetric `alg` (never `none` or HMAC), a
 * public `jwk` only, the claims (`htm`, `htu`, `iat`, `ath`), then the signature by exactly that key and
 * algorithm (keys imported once per thumbprint, kept in a bounded cache). Cheap checks come first, so a
 * malformed proof costs no signature verification.
 */
export function verifyDPoPProof(proof: string, expected: DPoPProofExpectations): DPoPProofVerification {
  const parsed = parseCompactJwt(proof, MAX_PROOF_BYTES, headerOf)
  if (!parsed.ok) return refuse(`dpop.${parsed.reason.replace(/^jwt\./, '')}`)
  const { header, payload } = parsed.jwt
  const headerProblem = checkHeader(header, expected.algorithms)
  if (headerProblem !== undefined) return refuse(headerProblem)
  const jwk = keyOf(proof, header)
  if (typeof jwk === 'string') return refuse(jwk)
  const claimProblem = checkClaims(payload, expected)
  if (claimProblem !== undefined) return refuse(claimProblem)
  const alg = header.alg as JWKSAlgorithm
  const key = proofKeys.get(jwk)
  if (key === undefined) return refuse('dpop.bad_jwk')
  if (!verifySignature(proof, alg, key)) return refuse('dpop.bad_signature')
  return {
    ok: true,
    proof: {
      thumbprint: jwk.thumbprint,
      jti: payload.jti as string,
      iat: payload.iat as number,
      nonce: payload.nonce as string | undefined,
    },
  }
}
