import { integerBetween, type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import type { OAuthTransactionProtector, ProtectedEnvelope } from '../../protection/protector.js'
import type { OAuthVaultReencryption, StaleVaultEnvelope } from './reencryption-port.js'
import { retryAssociatedData, vaultAssociatedData } from './vault-codec.js'

/** An envelope no known key opens (or a damaged one): reported with its record identity, never its content. */
export interface UnreadableVaultEnvelope {
  readonly provider: string
  readonly clientId: string
  readonly kind: StaleVaultEnvelope['kind']
  readonly providerAccountId: string
  /** The vault entry's token version (`vault-tokens` only). */
  readonly version?: number
  /** The retry id (`revocation-retry` only). */
  readonly retryId?: string
  /** The key version the envelope is labelled with; null when the stored form is damaged. */
  readonly keyVersion: string | null
}

export interface OAuthVaultReencryptionReport {
  /** Envelopes found under a key other than the active one. */
  readonly scanned: number
  /** Re-sealed under the active key. */
  readonly resealed: number
  /** Changed or removed by a concurrent writer between the scan and the rewrite: the writer's value stays. */
  readonly raced: number
  /** Left exactly as they were: no key of the protector opens them. The retained key that does must stay. */
  readonly unreadable: readonly UnreadableVaultEnvelope[]
}

export interface ReencryptOAuthVaultOptions {
  /** One per provider registration (`OAuthAccountStore`s such as `PostgresOAuthAccountStore`). */
  readonly stores: readonly OAuthVaultReencryption[]
  /** The protector the stores use: the new key active, the old ones retained. */
  readonly protector: OAuthTransactionProtector
  /** Envelopes listed per store call, 1..1000. Default 200. */
  readonly batchSize?: number
  /** Called after each batch with the counts so far. */
  readonly onProgress?: (report: OAuthVaultReencryptionReport) => void
}

const hasMethods = (value: unknown, names: readonly string[]) =>
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')

const OPTIONS: OptionsShape<ReencryptOAuthVaultOptions> = {
  stores: {
    required: true,
    kind: 'array',
    elements: {
      kind: 'object',
      check: (store) =>
        hasMethods(store, ['listStaleEnvelopes', 'rewriteEnvelope'])
          ? undefined
          : 'must list and rewrite envelopes (OAuthVaultReencryption)',
    },
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

/** The associated data the store sealed the envelope with: purpose and record identity, as when it was written. */
function associatedDataOf(store: OAuthVaultReencryption, stale: StaleVaultEnvelope): Uint8Array {
  return stale.kind === 'vault-tokens'
    ? vaultAssociatedData(store.provider, store.clientId, stale.providerAccountId, stale.version)
    : retryAssociatedData(store.provider, store.clientId, stale.providerAccountId, stale.retryId)
}

const identityOf = (stale: StaleVaultEnvelope): string =>
  stale.kind === 'vault-tokens' ? `vault ${stale.providerAccountId}` : `retry ${stale.retryId}`

function unreadable(store: OAuthVaultReencryption, stale: StaleVaultEnvelope): UnreadableVaultEnvelope {
  const where = { provider: store.provider, clientId: store.clientId, kind: stale.kind }
  const keyVersion = stale.envelope?.keyVersion ?? null
  return stale.kind === 'vault-tokens'
    ? { ...where, providerAccountId: stale.providerAccountId, version: stale.version, keyVersion }
    : { ...where, providerAccountId: stale.providerAccountId, retryId: stale.retryId, keyVersion }
}

/** Opens under whichever known key sealed it and seals again under the active key; undefined if it does not open. */
async function reseal(
  protector: OAuthTransactionProtector,
  envelope: ProtectedEnvelope,
  aad: Uint8Array,
): Promise<ProtectedEnvelope | undefined> {
  let plaintext: Uint8Array
  try {
    plaintext = await protector.unprotect(envelope, aad)
  } catch {
    return undefined
  }
  try {
    // A sealing failure (randomness, an HSM) is not the record's fault: it ends the run.
    return await protector.protect(plaintext, aad)
  } finally {
    plaintext.fill(0)
  }
}

/**
 * Step 4 of the rotation runbook for the token vault and the staged revocation retries: re-seals every
 * envelope not under the protector's active key with the same associated data (purpose and record
 * identity), so a retained key can be dropped. Each rewrite is a compare-and-swap that keeps the token
 * version: a concurrent refresh either lands first (the rewrite loses and is counted as `raced`) or
 * after (its own compare-and-swap still matches). An envelope no key opens is reported in `unreadable`
 * and left in place, never deleted. Running it again finds nothing to do.
 */
export async function reencryptOAuthVault(
  options: ReencryptOAuthVaultOptions,
): Promise<OAuthVaultReencryptionReport> {
  readOptions(options, 'reencryptOAuthVault', OPTIONS)
  const { stores, protector } = options
  const limit = options.batchSize ?? 200
  const activeKeyVersion = protector.activeKeyVersion
  let scanned = 0
  let resealed = 0
  let raced = 0
  const failed: UnreadableVaultEnvelope[] = []
  const report = (): OAuthVaultReencryptionReport => ({ scanned, resealed, raced, unreadable: [...failed] })
  for (const store of stores) {
    let after: StaleVaultEnvelope | undefined
    for (;;) {
      const batch = await store.listStaleEnvelopes({
        activeKeyVersion,
        limit,
        ...(after === undefined ? {} : { after }),
      })
      const [first] = batch
      if (first !== undefined && after !== undefined && identityOf(first) === identityOf(after)) {
        // A listing that does not move past its cursor would repeat an unreadable envelope forever.
        throw new ConfigurationError(
          'oauth.account.reencryption_store',
          'listStaleEnvelopes listed the envelope it was asked to continue after',
        )
      }
      for (const stale of batch) {
        after = stale
        if (stale.envelope?.keyVersion === activeKeyVersion) continue
        scanned += 1
        const next =
          stale.envelope === null
            ? undefined
            : await reseal(protector, stale.envelope, associatedDataOf(store, stale))
        if (next === undefined) failed.push(unreadable(store, stale))
        else if (await store.rewriteEnvelope({ stale, envelope: next })) resealed += 1
        else raced += 1
      }
      options.onProgress?.(report())
      if (batch.length < limit) break
    }
  }
  return report()
}
