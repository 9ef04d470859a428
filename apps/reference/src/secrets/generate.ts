import { randomBytes } from 'node:crypto'
import { generateLocalSigningKey, LocalSigningKeyRing } from '@portcullis/core/local-accounts'
import { exportJWK, generateKeyPair } from 'jose'
import { type ReferenceSecrets, SECRETS_FORMAT, type VersionedSecret } from './secrets.js'

/** 32 fresh random bytes as base64url. */
export function randomSecret(size = 32): string {
  return randomBytes(size).toString('base64url')
}

/** A version label that sorts by date and never repeats: `k20250601-3fa2c1`. */
export function versionLabel(now: Date): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '')
  return `k${day}-${randomBytes(3).toString('hex')}`
}

/** A fresh versioned secret of `size` random bytes. */
export function versionedSecret(now: Date, size = 32): VersionedSecret {
  return { version: versionLabel(now), value: randomSecret(size) }
}

/** Fresh key material for every part of the app (the first start, or a new environment). */
export async function generateSecrets(now = new Date()): Promise<ReferenceSecrets> {
  const signing = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now }) })
  const workload = await generateLocalSigningKey({ now, alg: 'ES256' })
  const idpKey = await generateKeyPair('RS256', { extractable: true })
  const idpJwk = await exportJWK(idpKey.privateKey)
  return {
    format: SECRETS_FORMAT,
    protector: { active: versionedSecret(now), retained: [] },
    apiKeyPepper: { active: versionedSecret(now), retained: [] },
    oauthTransactionPepper: randomSecret(),
    localSigningKeys: signing.exportPrivate(),
    workloadSigner: workload.exportPrivateJwk(),
    passkeyPepper: randomSecret(),
    recoveryCodePepper: { active: versionedSecret(now), retained: [] },
    demoSessionKey: randomSecret(),
    demoIdp: {
      clientSecret: randomSecret(),
      cookieKeys: [randomSecret()],
      signingKey: { ...(idpJwk as Record<string, string>), kid: versionLabel(now), alg: 'RS256', use: 'sig' },
    },
  }
}
