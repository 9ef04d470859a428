// Test-only JWT material: key pairs generated at run time (never committed) and a compact signer that can
// produce any header, including malformed ones, so the attack corpus can express every case.
import { constants, createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'

export type TestAlgorithm = 'ES256' | 'RS256' | 'PS256' | 'EdDSA'

export interface TestKey {
  readonly kid: string
  readonly alg: TestAlgorithm
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  /** The public JWK as published in a JWKS (with kid, alg, use). */
  readonly jwk: Record<string, unknown>
}

export function generateTestKey(alg: TestAlgorithm, kid: string): TestKey {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' }
  return { kid, alg, privateKey: pair.privateKey, publicKey: pair.publicKey, jwk }
}

export const b64u = (input: string | Uint8Array): string => Buffer.from(input).toString('base64url')

/** Signs `<header>.<payload>`; `rawHeader`/`rawPayload` bypass JSON.stringify (duplicate members etc.). */
export function signCompact(options: {
  readonly header?: Record<string, unknown>
  readonly rawHeader?: string
  readonly payload?: Record<string, unknown>
  readonly rawPayload?: string
  readonly key: TestKey | { readonly hmacSecret: Uint8Array | string }
  readonly signAs?: TestAlgorithm | 'HS256'
}): string {
  const header = options.rawHeader ?? JSON.stringify(options.header ?? {})
  const payload = options.rawPayload ?? JSON.stringify(options.payload ?? {})
  const input = `${b64u(header)}.${b64u(payload)}`
  const data = Buffer.from(input)
  let signature: Buffer
  if ('hmacSecret' in options.key) {
    signature = createHmac('sha256', options.key.hmacSecret).update(data).digest()
  } else {
    const alg = options.signAs ?? options.key.alg
    const key = options.key.privateKey
    if (alg === 'ES256') signature = sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' })
    else if (alg === 'EdDSA') signature = sign(null, data, key)
    else if (alg === 'PS256') {
      signature = sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 })
    } else signature = sign('sha256', data, key)
  }
  return `${input}.${b64u(signature)}`
}

/** Standard claims for `issuer`/`audience`, issued at `nowSeconds`, valid for five minutes. */
export function workloadClaims(
  issuer: string,
  audience: string,
  nowSeconds: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    iss: issuer,
    sub: 'svc-billing',
    aud: audience,
    iat: nowSeconds,
    exp: nowSeconds + 300,
    client_id: 'billing-client',
    jti: `jti-${nowSeconds}-${Math.random().toString(36).slice(2)}`,
    scope: 'invoices:read invoices:write',
    ...extra,
  }
}
