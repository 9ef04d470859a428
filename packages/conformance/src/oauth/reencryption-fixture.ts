import { randomBytes } from 'node:crypto'
import { accounts } from '@portcullis/core/oauth'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
  type ProtectedEnvelope,
} from '@portcullis/core/protection'
import { linkedAccount, NOW } from './fixture.js'

type Store = accounts.OAuthAccountStore & accounts.OAuthVaultReencryption

/**
 * What a re-encryption case gets: a store over a provider registration (or storage) that no other case
 * uses, because re-encryption sweeps every envelope the store can see, and the inspector of its envelopes.
 */
export interface OAuthVaultReencryptionFixture {
  readonly store: Store
  readonly inspector: accounts.OAuthVaultInspector
  dispose?(): Promise<void> | void
}

/**
 * Builds a fixture whose store seals and opens with `protector`. The suite owns that protector: it moves
 * its keys through a rotation (old key active, new key active with the old one retained, new key alone)
 * while the store keeps the same instance.
 */
export type OAuthVaultReencryptionFactory = (
  protector: OAuthTransactionProtector,
) => OAuthVaultReencryptionFixture | Promise<OAuthVaultReencryptionFixture>

/** The key versions a case moves through: `dropped` is never retained once `old` is active. */
export type KeyName = 'dropped' | 'old' | 'new'

/**
 * A protector whose key ring the suite switches: `use('new', 'old')` makes `new` active with `old`
 * retained. Every switch builds a fresh `AESGCMOAuthTransactionProtector` over the same key material.
 */
export class RotatingProtector implements OAuthTransactionProtector {
  readonly #keys: Record<KeyName, OAuthTransactionProtectorKey>
  #current: AESGCMOAuthTransactionProtector

  constructor() {
    const key = (name: KeyName) => new OAuthTransactionProtectorKey(`conformance-${name}`, randomBytes(32))
    this.#keys = { dropped: key('dropped'), old: key('old'), new: key('new') }
    this.#current = new AESGCMOAuthTransactionProtector({ activeKey: this.#keys.old })
  }

  use(active: KeyName, ...retained: KeyName[]): void {
    this.#current = new AESGCMOAuthTransactionProtector({
      activeKey: this.#keys[active],
      retainedKeys: retained.map((name) => this.#keys[name]),
    })
  }

  versionOf(name: KeyName): string {
    return this.#keys[name].version
  }

  get activeKeyVersion(): string {
    return this.#current.activeKeyVersion
  }

  protect(plaintext: Uint8Array, associatedData: Uint8Array): Promise<ProtectedEnvelope> {
    return this.#current.protect(plaintext, associatedData)
  }

  unprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<Uint8Array> {
    return this.#current.unprotect(envelope, associatedData)
  }
}

/** One case's world: the fixture and the protector its store uses. */
export interface ReencryptionContext {
  readonly fixture: OAuthVaultReencryptionFixture
  readonly keys: RotatingProtector
}

/** Runs the core helper over the case's store with the case's protector. */
export function reencrypt(
  { fixture, keys }: ReencryptionContext,
  options: Partial<Pick<accounts.ReencryptOAuthVaultOptions, 'batchSize' | 'onProgress' | 'stores'>> = {},
): Promise<accounts.OAuthVaultReencryptionReport> {
  return accounts.reencryptOAuthVault({ stores: [fixture.store], protector: keys, ...options })
}

/** A linked account with retained tokens under the protector's current active key. */
export async function vaultEntry(store: Store) {
  const linked = await linkedAccount(store, undefined, { password: false })
  return {
    ...linked,
    providerAccountId: linked.link.providerAccountId,
    version: linked.reference?.version ?? 0,
  }
}

/** A linked account whose tokens moved into a staged revocation retry (sealed under the active key). */
export async function stagedRetry(store: Store) {
  const linked = await vaultEntry(store)
  const staged = await store.stageRevocationRetry({
    providerAccountId: linked.providerAccountId,
    expectedVersion: linked.version,
    tokens: linked.tokens,
    failedTokenTypes: ['refresh_token'],
    occurredAt: NOW,
  })
  return { ...linked, retryId: staged?.retryId ?? '' }
}

/** Same key version and the same bytes. */
export function sameBytes(a: ProtectedEnvelope | null, b: ProtectedEnvelope | null): boolean {
  return (
    a !== null &&
    b !== null &&
    a.keyVersion === b.keyVersion &&
    Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))
  )
}

/** Re-seals a listed envelope as the helper would (same associated data), for cases that drive the port directly. */
export async function resealed(
  store: Store,
  keys: OAuthTransactionProtector,
  stale: accounts.StaleVaultEnvelope,
): Promise<ProtectedEnvelope> {
  if (stale.envelope === null) throw new Error('a damaged envelope cannot be re-sealed')
  const aad =
    stale.kind === 'vault-tokens'
      ? accounts.vaultAssociatedData(store.provider, store.clientId, stale.providerAccountId, stale.version)
      : accounts.retryAssociatedData(store.provider, store.clientId, stale.providerAccountId, stale.retryId)
  return keys.protect(await keys.unprotect(stale.envelope, aad), aad)
}

/** Every stale envelope the store lists, paging `limit` at a time. */
export async function listAll(
  store: Store,
  activeKeyVersion: string,
  limit: number,
): Promise<accounts.StaleVaultEnvelope[]> {
  const all: accounts.StaleVaultEnvelope[] = []
  for (let page = 0; page < 1000; page += 1) {
    const after = all.at(-1)
    const batch = await store.listStaleEnvelopes({
      activeKeyVersion,
      limit,
      ...(after === undefined ? {} : { after }),
    })
    all.push(...batch)
    if (batch.length < limit) break
  }
  return all
}

export const idOf = (stale: accounts.StaleVaultEnvelope): string =>
  stale.kind === 'vault-tokens' ? `vault:${stale.providerAccountId}` : `retry:${stale.retryId}`
