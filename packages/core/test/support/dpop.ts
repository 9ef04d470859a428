// Test-only DPoP proofs: a client key made at run time and a proof signer that can express any header
// or claim, so every RFC 9449 attack is a test case.
import { randomUUID } from 'node:crypto'
import { calculateJwkThumbprint, type JWK } from 'jose'
import type { CredentialSource } from '../../src/authentication/mechanism.js'
import { accessTokenHash } from '../../src/dpop/dpop-proof.js'
import { generateTestKey, signCompact, type TestAlgorithm, type TestKey } from './jwt.js'

export interface DPoPClientKey {
  readonly key: TestKey
  /** The public JWK without kid/use, as a client puts it in a proof header. */
  readonly publicJwk: Record<string, unknown>
  readonly thumbprint: string
}

export async function dpopClientKey(alg: TestAlgorithm = 'ES256'): Promise<DPoPClientKey> {
  const key = generateTestKey(alg, 'client')
  const { kid: _kid, use: _use, alg: _alg, ...publicJwk } = key.jwk
  return { key, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk as JWK, 'sha256') }
}

export interface ProofOptions {
  readonly method?: string
  readonly url?: string
  readonly token?: string
  readonly iat?: number
  readonly header?: Record<string, unknown>
  readonly claims?: Record<string, unknown>
  readonly signWith?: TestKey | { readonly hmacSecret: Uint8Array | string }
}

/** A DPoP proof for `url` and `token` at `iat`, signed by `client` unless `signWith` says otherwise. */
export function dpopProof(client: DPoPClientKey, options: ProofOptions & { readonly iat: number }): string {
  return signCompact({
    header: { typ: 'dpop+jwt', alg: client.key.alg, jwk: client.publicJwk, ...options.header },
    payload: {
      jti: randomUUID(),
      htm: options.method ?? 'GET',
      htu: options.url ?? 'https://app.example/mcp',
      iat: options.iat,
      ...(options.token === undefined ? {} : { ath: accessTokenHash(options.token) }),
      ...options.claims,
    },
    key: options.signWith ?? client.key,
  })
}

/** A request view: method, path and lower-case headers. */
export function requestSource(
  headers: Record<string, string>,
  method = 'GET',
  path = '/mcp',
): CredentialSource {
  return { header: (name) => headers[name.toLowerCase()], cookie: () => undefined, method, path }
}
