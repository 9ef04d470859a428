import { hkdfSync } from 'node:crypto'
import { ApiKeyPepperRing, decodeApiKeyPepper } from '@portcullis/core/api-keys'
import type { CodeKey } from '@portcullis/core/codes'
import { importLocalSigningKeyRing, type LocalSigningKeyRing } from '@portcullis/core/local-accounts'
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { WorkloadSigner } from '../workload/workload-signer.js'
import { type ReferenceSecrets, type SecretRing, SecretsError } from './secrets.js'

/** The secrets turned into the objects the app uses; built once at startup. */
export interface KeyMaterial {
  /** Seals OAuth transaction secrets and token-vault envelopes (active key + retained keys). */
  readonly protector: AESGCMOAuthTransactionProtector
  readonly peppers: ApiKeyPepperRing
  /** HMAC key of OAuth transaction digests (for the OAuth routes). */
  readonly oauthTransactionPepper: Uint8Array
  /** Local access-token signing keys (for the local-accounts routes). */
  readonly localSigningKeys: LocalSigningKeyRing
  readonly workloadSigner: WorkloadSigner
  /** HMAC key of passkey challenge and browser-binding digests. */
  readonly passkeyPepper: Uint8Array
  /** Peppers of recovery-code digests (active and retained versions). */
  readonly recoveryCodePeppers: {
    readonly active: { readonly version: string; readonly secret: Uint8Array }
    readonly retained: readonly { readonly version: string; readonly secret: Uint8Array }[]
  }
  readonly demoSessionKey: Uint8Array
  /**
   * The HMAC key of the one-time codes sent by mail (reset, verification, email change), version 1:
   * derived from `oauthTransactionPepper` (HKDF, its own label), so every document has it and every
   * instance digests codes alike.
   */
  readonly emailCodeKey: CodeKey
  /**
   * Seals the pages' short-lived cookies (a notice after a redirect, a TOTP enrollment in progress): derived
   * from the active protector key, so every instance of the app opens what another sealed.
   */
  readonly pageCookieKey: Uint8Array
  readonly demoIdp: ReferenceSecrets['demoIdp']
}

const bytes = (value: string) => new Uint8Array(Buffer.from(value, 'base64url'))

/** A key of its own for `label`, derived from a secret of the document (for documents that predate it). */
const derived = (secret: string, label: string) =>
  new Uint8Array(hkdfSync('sha256', bytes(secret), new Uint8Array(0), `portcullis-reference|${label}`, 32))

/** Runs `build`; a failure names the part of the secrets that cannot be used, never its value. */
async function part<T>(name: string, build: () => T | Promise<T>): Promise<T> {
  try {
    return await build()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    throw new SecretsError(`secrets: ${name} cannot be used${typeof code === 'string' ? ` (${code})` : ''}`, {
      cause: error,
    })
  }
}

export function protectorOf(ring: SecretRing): AESGCMOAuthTransactionProtector {
  const key = (secret: SecretRing['active']) =>
    loadOAuthTransactionProtectorKey({
      version: secret.version,
      material: secret.value,
      encoding: 'base64url',
    })
  return new AESGCMOAuthTransactionProtector({
    activeKey: key(ring.active),
    retainedKeys: ring.retained.map(key),
  })
}

/** Imports every key; refuses unusable material with one line naming the part. */
export async function buildKeyMaterial(secrets: ReferenceSecrets): Promise<KeyMaterial> {
  const recoveryPepper = (secret: SecretRing['active']) => ({
    version: secret.version,
    secret: bytes(secret.value),
  })
  const pepper = (secret: SecretRing['active']) =>
    decodeApiKeyPepper(secret.version, secret.value, 'base64url')
  return {
    protector: await part('protector', () => protectorOf(secrets.protector)),
    peppers: await part(
      'apiKeyPepper',
      () =>
        new ApiKeyPepperRing(pepper(secrets.apiKeyPepper.active), secrets.apiKeyPepper.retained.map(pepper)),
    ),
    oauthTransactionPepper: bytes(secrets.oauthTransactionPepper),
    localSigningKeys: await part('localSigningKeys', () =>
      importLocalSigningKeyRing(secrets.localSigningKeys),
    ),
    workloadSigner: await part('workloadSigner', () => WorkloadSigner.import(secrets.workloadSigner)),
    passkeyPepper:
      secrets.passkeyPepper === undefined
        ? derived(secrets.oauthTransactionPepper, 'passkey-pepper')
        : bytes(secrets.passkeyPepper),
    recoveryCodePeppers:
      secrets.recoveryCodePepper === undefined
        ? {
            active: {
              version: 'derived',
              secret: derived(secrets.oauthTransactionPepper, 'recovery-code-pepper'),
            },
            retained: [],
          }
        : {
            active: recoveryPepper(secrets.recoveryCodePepper.active),
            retained: secrets.recoveryCodePepper.retained.map(recoveryPepper),
          },
    demoSessionKey: bytes(secrets.demoSessionKey),
    emailCodeKey: { version: 1, secret: derived(secrets.oauthTransactionPepper, 'email-code-key') },
    pageCookieKey: derived(secrets.protector.active.value, 'page-cookies'),
    demoIdp: secrets.demoIdp,
  }
}
