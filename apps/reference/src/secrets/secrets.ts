import type { LocalPrivateJWK, LocalSigningKeyRingExport } from '@portcullis/core/local-accounts'

/** The format tag of the secrets document; a file with another tag is refused. */
export const SECRETS_FORMAT = 'portcullis-reference-secrets/1'

/** A secret under a version label; `value` is base64url. */
export interface VersionedSecret {
  readonly version: string
  readonly value: string
}

/** An active secret and the retired ones still needed to read what they protected. */
export interface SecretRing {
  readonly active: VersionedSecret
  readonly retained: readonly VersionedSecret[]
}

/** Everything secret the app needs; generated once, kept in the secrets file or a secret store. */
export interface ReferenceSecrets {
  readonly format: typeof SECRETS_FORMAT
  /** AES-256-GCM keys of the OAuth protector (transactions and token vault), 32 bytes each. */
  readonly protector: SecretRing
  /** HMAC peppers of API key digests, 32 bytes or more. */
  readonly apiKeyPepper: SecretRing
  /** HMAC key of OAuth transaction state and browser-binding digests (base64url, 32 bytes). */
  readonly oauthTransactionPepper: string
  /** The local token signing key ring (access tokens of local accounts). */
  readonly localSigningKeys: LocalSigningKeyRingExport
  /** The demo workload issuer's private key (the CLI mints workload JWTs with it). */
  readonly workloadSigner: LocalPrivateJWK
  /**
   * HMAC key of passkey challenge and browser-binding digests (base64url, 32 bytes). Documents written
   * before passkeys lack it; the app then derives it from `oauthTransactionPepper` (HKDF, its own label).
   */
  readonly passkeyPepper?: string
  /**
   * HMAC peppers of recovery-code digests, 32 bytes or more. Absent from older documents: then derived
   * from `oauthTransactionPepper` (HKDF, its own label) under the version `derived`.
   */
  readonly recoveryCodePepper?: SecretRing
  /** HMAC key of the demo sign-in stand-in's cookie (base64url, 32 bytes). */
  readonly demoSessionKey: string
  /** The demo OpenID Provider: its client secret for this app, cookie keys and ID-token signing key. */
  readonly demoIdp: {
    readonly clientSecret: string
    readonly cookieKeys: readonly string[]
    readonly signingKey: Readonly<Record<string, string>>
  }
}

/** The secrets cannot be used; the message is one line and never contains secret material. */
export class SecretsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'SecretsError'
  }
}

type Json = Record<string, unknown>
const BASE64URL = /^[A-Za-z0-9_-]+$/
const VERSION = /^[A-Za-z0-9_-]{1,32}$/

function object(value: unknown, path: string, keys: readonly string[]): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(`${path} is not an object`)
  const unknown = Object.keys(value).find((key) => !keys.includes(key))
  if (unknown !== undefined) throw bad(`${path} has an unknown member ${JSON.stringify(unknown)}`)
  return value as Json
}

function bad(problem: string): SecretsError {
  return new SecretsError(problem)
}

/** base64url text of at least `min` (and at most `max`) bytes. */
function bytes(value: unknown, path: string, min: number, max = min): string {
  if (typeof value !== 'string' || !BASE64URL.test(value)) throw bad(`${path} is not base64url`)
  const length = Buffer.from(value, 'base64url').byteLength
  if (Buffer.from(value, 'base64url').toString('base64url') !== value || length < min || length > max) {
    throw bad(`${path} must be ${min === max ? min : `${min} to ${max}`} bytes of base64url`)
  }
  return value
}

function ring(value: unknown, path: string, min: number, max: number): SecretRing {
  const json = object(value, path, ['active', 'retained'])
  const entry = (item: unknown, at: string): VersionedSecret => {
    const secret = object(item, at, ['version', 'value'])
    if (typeof secret.version !== 'string' || !VERSION.test(secret.version))
      throw bad(`${at}.version is invalid`)
    return { version: secret.version, value: bytes(secret.value, `${at}.value`, min, max) }
  }
  if (!Array.isArray(json.retained)) throw bad(`${path}.retained is not a list`)
  const active = entry(json.active, `${path}.active`)
  const retained = json.retained.map((item, index) => entry(item, `${path}.retained[${index}]`))
  const versions = new Set([active.version, ...retained.map((secret) => secret.version)])
  if (versions.size !== retained.length + 1) throw bad(`${path} repeats a version`)
  return { active, retained }
}

function jwk(value: unknown, path: string): Readonly<Record<string, string>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(`${path} is not a JWK`)
  if (!Object.values(value).every((member) => typeof member === 'string')) throw bad(`${path} is not a JWK`)
  if (typeof (value as Json).d !== 'string') throw bad(`${path} has no private part`)
  return value as Record<string, string>
}

/**
 * Checks the shape of a parsed secrets document: every member known, every secret of the right length.
 * Keys are imported (and checked further) when the app builds its key material.
 */
export function parseSecrets(value: unknown): ReferenceSecrets {
  const json = object(value, 'secrets', [
    'format',
    'protector',
    'apiKeyPepper',
    'oauthTransactionPepper',
    'localSigningKeys',
    'workloadSigner',
    'passkeyPepper',
    'recoveryCodePepper',
    'demoSessionKey',
    'demoIdp',
  ])
  if (json.format !== SECRETS_FORMAT) throw bad(`format is not ${SECRETS_FORMAT}`)
  const idp = object(json.demoIdp, 'demoIdp', ['clientSecret', 'cookieKeys', 'signingKey'])
  if (!Array.isArray(idp.cookieKeys) || idp.cookieKeys.length === 0) throw bad('demoIdp.cookieKeys is empty')
  const signing = object(json.localSigningKeys, 'localSigningKeys', ['active', 'activeCreatedAt', 'retired'])
  if (typeof signing.activeCreatedAt !== 'string' || !Array.isArray(signing.retired)) {
    throw bad('localSigningKeys is not a signing key ring')
  }
  jwk(signing.active, 'localSigningKeys.active')
  return {
    format: SECRETS_FORMAT,
    protector: ring(json.protector, 'protector', 32, 32),
    apiKeyPepper: ring(json.apiKeyPepper, 'apiKeyPepper', 32, 64),
    oauthTransactionPepper: bytes(json.oauthTransactionPepper, 'oauthTransactionPepper', 32),
    localSigningKeys: json.localSigningKeys as unknown as LocalSigningKeyRingExport,
    workloadSigner: jwk(json.workloadSigner, 'workloadSigner') as unknown as LocalPrivateJWK,
    ...(json.passkeyPepper === undefined
      ? {}
      : { passkeyPepper: bytes(json.passkeyPepper, 'passkeyPepper', 32) }),
    ...(json.recoveryCodePepper === undefined
      ? {}
      : { recoveryCodePepper: ring(json.recoveryCodePepper, 'recoveryCodePepper', 32, 64) }),
    demoSessionKey: bytes(json.demoSessionKey, 'demoSessionKey', 32),
    demoIdp: {
      clientSecret: bytes(idp.clientSecret, 'demoIdp.clientSecret', 32),
      cookieKeys: idp.cookieKeys.map((key, index) => bytes(key, `demoIdp.cookieKeys[${index}]`, 32)),
      signingKey: jwk(idp.signingKey, 'demoIdp.signingKey'),
    },
  }
}

/** Parses the text of a secrets document (JSON); every failure is a `SecretsError`. */
export function parseSecretsText(text: string): ReferenceSecrets {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw bad('it is not valid JSON')
  }
  return parseSecrets(value)
}
