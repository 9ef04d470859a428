import { importJWK, type JWK } from 'jose'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { JWKSError } from './jwks-error.js'
import type { JWKSAlgorithm, VerificationKey } from './jwks-provider.js'
import { isStrictIdentifier } from './strict-identifier.js'
import { isJsonObject, type JsonValue, parseStrictJson } from './strict-json.js'

export interface JWKSDocumentLimits {
  readonly maxBytes: number
  readonly maxKeys: number
}

/** An imported key plus a fingerprint of its public material, so a refresh can reuse unchanged keys. */
export interface ImportedKey {
  readonly verification: VerificationKey
  readonly fingerprint: string
}

/** Keys of one document, by `selectionId(kid, alg)`. */
export type KeySet = ReadonlyMap<string, ImportedKey>

export const selectionId = (kid: string, alg: JWKSAlgorithm): string => `${kid}\u0000${alg}`

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']
const MAX_JSON_DEPTH = 64

const invalidDocument = (message: string): JWKSError => new JWKSError('jwks.document_invalid', message)

/**
 * Parses and imports a JWK Set. The whole document is refused (and a live key set kept) when it is too
 * large, not strict JSON, has more than `maxKeys` keys, contains private or symmetric key material, or
 * lists the same `(kid, alg)` twice. Individual keys that can never verify here (encryption keys, other
 * algorithms, weak RSA moduli, no `kid`) are skipped. A key without `alg` is usable for every algorithm its
 * type supports. Keys whose public material did not change since `previous` are reused, not re-imported.
 */
export async function parseJWKSDocument(
  body: string,
  limits: JWKSDocumentLimits,
  previous?: KeySet,
): Promise<KeySet> {
  if (Buffer.byteLength(body, 'utf8') > limits.maxBytes) {
    throw new JWKSError('jwks.document_too_large', 'JWKS document exceeds the size limit')
  }
  let document: JsonValue
  try {
    document = parseStrictJson(body, MAX_JSON_DEPTH)
  } catch (error) {
    throw new JWKSError('jwks.document_invalid', 'JWKS document is not strict JSON', { cause: error })
  }
  if (!isJsonObject(document) || !Array.isArray(document.keys))
    throw invalidDocument('JWKS document has no keys array')
  const entries = document.keys
  if (entries.length > limits.maxKeys) throw invalidDocument('JWKS document has too many keys')

  const candidates: { id: string; kid: string; alg: JWKSAlgorithm; jwk: JWK; fingerprint: string }[] = []
  const seen = new Set<string>()
  for (const entry of entries) {
    if (!isJsonObject(entry)) throw invalidDocument('JWKS entry is not an object')
    if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(entry, member))) {
      throw invalidDocument('JWKS document contains private or symmetric key material')
    }
    const usable = usableKey(entry)
    if (usable === undefined) continue
    for (const alg of usable.algorithms) {
      const id = selectionId(usable.kid, alg)
      if (seen.has(id)) throw invalidDocument('JWKS document lists the same kid and alg twice')
      seen.add(id)
      candidates.push({ id, kid: usable.kid, alg, jwk: usable.jwk, fingerprint: usable.fingerprint })
    }
  }

  const keys = new Map<string, ImportedKey>()
  await Promise.all(
    candidates.map(async ({ id, kid, alg, jwk, fingerprint }) => {
      const reused = previous?.get(id)
      if (reused !== undefined && reused.fingerprint === fingerprint) {
        keys.set(id, reused)
        return
      }
      try {
        const key = await importJWK(jwk, alg, { extractable: false })
        if (key instanceof Uint8Array) return
        keys.set(id, { verification: { kid, alg, key }, fingerprint })
      } catch (error) {
        if (isPortcullisError(error)) throw error
        // A key jose cannot import (bad coordinates, wrong length) is skipped like any unusable key.
      }
    }),
  )
  return keys
}

interface UsableKey {
  readonly kid: string
  readonly algorithms: readonly JWKSAlgorithm[]
  readonly jwk: JWK
  readonly fingerprint: string
}

function usableKey(entry: { [member: string]: JsonValue }): UsableKey | undefined {
  const { kid, kty, alg, use } = entry
  const keyOps = entry.key_ops
  if (!isStrictIdentifier(kid, 256)) return undefined
  if (use !== undefined && use !== 'sig') return undefined
  if (keyOps !== undefined && !(Array.isArray(keyOps) && keyOps.includes('verify'))) return undefined
  if (alg !== undefined && typeof alg !== 'string') return undefined
  const material = publicMaterial(entry)
  if (material === undefined) return undefined
  const algorithms = material.algorithms.filter((candidate) => alg === undefined || candidate === alg)
  if (algorithms.length === 0) return undefined
  return {
    kid,
    algorithms,
    jwk: material.jwk,
    fingerprint: [kty, material.jwk.crv, material.jwk.x, material.jwk.y, material.jwk.n, material.jwk.e].join(
      '|',
    ),
  }
}

function publicMaterial(entry: {
  [member: string]: JsonValue
}): { jwk: JWK; algorithms: readonly JWKSAlgorithm[] } | undefined {
  const { kty, crv, x, y, n, e } = entry
  if (kty === 'OKP' && crv === 'Ed25519' && typeof x === 'string') {
    return { jwk: { kty, crv, x }, algorithms: ['EdDSA'] }
  }
  if (kty === 'EC' && crv === 'P-256' && typeof x === 'string' && typeof y === 'string') {
    return { jwk: { kty, crv, x, y }, algorithms: ['ES256'] }
  }
  if (kty === 'RSA' && typeof n === 'string' && typeof e === 'string' && modulusBits(n) >= 2048) {
    return { jwk: { kty, n, e }, algorithms: ['RS256', 'PS256'] }
  }
  return undefined
}

function modulusBits(encoded: string): number {
  const bytes = Buffer.from(encoded, 'base64url')
  let start = 0
  while (start < bytes.length && bytes[start] === 0) start++
  const first = bytes[start]
  if (first === undefined) return 0
  return (bytes.length - start - 1) * 8 + (32 - Math.clz32(first))
}
