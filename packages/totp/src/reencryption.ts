import { ConfigurationError, integerBetween, type OptionsShape, readOptions } from '@portcullis/core/errors'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { sealedSecretKeyVersion, type TotpSecretResealing } from '@portcullis/core/totp'
import { openTotpSecret, sealTotpSecret } from './one-time-code.js'

/** A sealed secret no key of the protector opens (or a damaged one): its account, never its content. */
export interface UnreadableTotpSecret {
  readonly accountId: string
  /** The key version the envelope is labelled with; null when the stored form is damaged. */
  readonly keyVersion: string | null
}

export interface TotpReencryptionReport {
  /** Re-sealed under the active key. */
  readonly rewritten: number
  /** Re-enrolled, disabled or otherwise changed between the listing and the rewrite: the new value stays. */
  readonly changed: number
  /** Left exactly as they were: no key of the protector opens them. The retained key that does must stay. */
  readonly unreadable: number
  /** The accounts counted in `unreadable`. */
  readonly unreadableSecrets: readonly UnreadableTotpSecret[]
}

export interface ReencryptTotpSecretsOptions {
  /** The TOTP store (`MemoryTotpStore`, `PostgresTotpStore`): its re-sealing port. */
  readonly store: TotpSecretResealing
  /** The protector the `TotpService` uses: the new key active, the old ones retained. */
  readonly protector: OAuthTransactionProtector
  /** Enrollments listed per store call, 1..1000. Default 200. */
  readonly batchSize?: number
  /** Called after each batch with the counts so far. */
  readonly onProgress?: (report: TotpReencryptionReport) => void
}

const hasMethods = (value: unknown, names: readonly string[]) =>
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')

const OPTIONS: OptionsShape<ReencryptTotpSecretsOptions> = {
  store: {
    required: true,
    kind: 'object',
    check: (store) =>
      hasMethods(store, ['listStaleTotpSecrets', 'resealTotpSecret'])
        ? undefined
        : 'must list and re-seal TOTP secrets (TotpSecretResealing)',
  },
  protector: {
    required: true,
    kind: 'object',
    check: (protector) =>
      hasMethods(protector, ['protect', 'unprotect']) ? undefined : 'must be a protector',
  },
  batchSize: { kind: 'number', check: integerBetween(1, 1000) },
  onProgress: { kind: 'function' },
}

/** Opens under whichever known key sealed it and seals again under the active key; undefined if it does not open. */
async function reseal(
  protector: OAuthTransactionProtector,
  accountId: string,
  sealed: string,
): Promise<string | undefined> {
  let secret: Uint8Array
  try {
    secret = await openTotpSecret(protector, accountId, sealed)
  } catch {
    return undefined
  }
  try {
    // A sealing failure (randomness, an HSM) is not the enrollment's fault: it ends the run.
    return await sealTotpSecret(protector, accountId, secret)
  } finally {
    secret.fill(0)
  }
}

/**
 * The TOTP step of the rotation runbook: re-seals every stored TOTP secret (pending or enabled) that is
 * not under the protector's active key, with the same associated data (purpose and account id), so a
 * retained key can be dropped. Each rewrite is a compare-and-swap on the listed envelope: a concurrent
 * disable or re-enrollment wins (counted as `changed`) and is never overwritten or brought back. A secret
 * no key opens is counted in `unreadable` and left in place, never deleted. Running it again finds
 * nothing to do. A confirmation that read a pending secret just before it was re-sealed loses its own
 * compare-and-swap (`totp.enrollment_changed`); the secret is the same, so confirming again works.
 */
export async function reencryptTotpSecrets(
  options: ReencryptTotpSecretsOptions,
): Promise<TotpReencryptionReport> {
  readOptions(options, 'reencryptTotpSecrets', OPTIONS)
  const { store, protector } = options
  const limit = options.batchSize ?? 200
  const activeKeyVersion = protector.activeKeyVersion
  let rewritten = 0
  let changed = 0
  const failed: UnreadableTotpSecret[] = []
  const report = (): TotpReencryptionReport => ({
    rewritten,
    changed,
    unreadable: failed.length,
    unreadableSecrets: [...failed],
  })
  let afterAccountId: string | undefined
  for (;;) {
    const batch = await store.listStaleTotpSecrets({
      activeKeyVersion,
      limit,
      ...(afterAccountId === undefined ? {} : { afterAccountId }),
    })
    if (batch.length > limit || (afterAccountId !== undefined && batch[0]?.accountId === afterAccountId)) {
      // A listing that does not move past its cursor would repeat an unreadable secret forever.
      throw new ConfigurationError(
        'totp.invalid_config',
        'listStaleTotpSecrets did not continue after its cursor within the limit',
      )
    }
    for (const { accountId, sealedSecret } of batch) {
      afterAccountId = accountId
      const keyVersion = sealedSecretKeyVersion(sealedSecret)
      if (keyVersion === activeKeyVersion) continue
      const next = keyVersion === null ? undefined : await reseal(protector, accountId, sealedSecret)
      if (next === undefined) failed.push({ accountId, keyVersion })
      else if (await store.resealTotpSecret({ accountId, expected: sealedSecret, sealedSecret: next }))
        rewritten += 1
      else changed += 1
    }
    options.onProgress?.(report())
    if (batch.length < limit) break
  }
  return report()
}
