import { randomUUID } from 'node:crypto'
import type { MemoryAccountTables } from '../../accounts/memory-tables.js'
import type { OAuthTransactionProtector } from '../../protection/protector.js'
import { requireBoundedInteger, requireId, requireVersion } from './input.js'
import { copyEnvelope, type StoreState, type VaultRow } from './memory-state.js'
import type { OAuthRevocationRetries, OAuthTokenVault } from './port.js'
import type { ClaimedRevocationRetry, ProviderTokenReference, StoredProviderTokens } from './records.js'
import { requireFailedTokenTypes, requireNow, requireTokenSet } from './request-input.js'
import type { ProviderTokenSet } from './token-set.js'
import { openTokens, retryAssociatedData, sealTokens, vaultAssociatedData } from './vault-codec.js'

/** What the memory store's parts share: its registration, protector, rows and transaction queue. */
export interface MemoryStoreContext {
  readonly provider: string
  readonly clientId: string
  readonly protector: OAuthTransactionProtector
  /** The account schema's tables (shared with the `MemoryAccountStore` and its other provider views). */
  readonly tables: MemoryAccountTables
  readonly state: StoreState
  readonly queue: MemoryAccountTables['queue']
}

type VaultRequest<K extends keyof (OAuthTokenVault & OAuthRevocationRetries)> = Parameters<
  (OAuthTokenVault & OAuthRevocationRetries)[K]
>[0]

/** Seals tokens as the next version (versions are taken from a counter that never restarts). */
export async function sealVaultRow(
  context: MemoryStoreContext,
  providerAccountId: string,
  tokens: ProviderTokenSet,
): Promise<VaultRow> {
  context.state.lastVersion += 1
  const version = context.state.lastVersion
  const aad = vaultAssociatedData(context.provider, context.clientId, providerAccountId, version)
  const envelope = await sealTokens((plaintext) => context.protector.protect(plaintext, aad), tokens)
  return { version, envelope: copyEnvelope(envelope), scopes: tokens.scopes, expiresAt: tokens.expiresAt }
}

export function referenceOf(providerAccountId: string, row: VaultRow): ProviderTokenReference {
  return Object.freeze({
    providerAccountId,
    version: row.version,
    scopes: row.scopes,
    expiresAt: new Date(row.expiresAt.getTime()),
  })
}

export async function getTokens(
  context: MemoryStoreContext,
  providerAccountId: string,
): Promise<StoredProviderTokens | null> {
  const id = requireId(providerAccountId, 'providerAccountId')
  return context.queue.run(async () => {
    const row = context.state.vault.get(id)
    if (row === undefined) return null
    const aad = vaultAssociatedData(context.provider, context.clientId, id, row.version)
    const tokens = await openTokens(() => context.protector.unprotect(copyEnvelope(row.envelope), aad))
    return { reference: referenceOf(id, row), tokens }
  })
}

export async function replaceTokens(
  context: MemoryStoreContext,
  request: VaultRequest<'replaceTokens'>,
): Promise<ProviderTokenReference | null> {
  const id = requireId(request.providerAccountId, 'providerAccountId')
  const expected = requireVersion(request.expectedVersion)
  const tokens = requireTokenSet(request.tokens)
  return context.queue.run(async () => {
    if (context.state.vault.get(id)?.version !== expected) return null
    const row = await sealVaultRow(context, id, tokens)
    context.state.vault.set(id, row)
    return referenceOf(id, row)
  })
}

export async function discardTokens(
  context: MemoryStoreContext,
  request: VaultRequest<'discardTokens'>,
): Promise<boolean> {
  const id = requireId(request.providerAccountId, 'providerAccountId')
  const expected = request.expectedVersion === undefined ? undefined : requireVersion(request.expectedVersion)
  return context.queue.run(() => {
    const row = context.state.vault.get(id)
    if (row === undefined || (expected !== undefined && row.version !== expected)) return false
    return context.state.vault.delete(id)
  })
}

export async function stageRevocationRetry(
  context: MemoryStoreContext,
  request: VaultRequest<'stageRevocationRetry'>,
): Promise<{ readonly retryId: string } | null> {
  const id = requireId(request.providerAccountId, 'providerAccountId')
  const expected = requireVersion(request.expectedVersion)
  const tokens = requireTokenSet(request.tokens)
  const failedTokenTypes = requireFailedTokenTypes(request.failedTokenTypes, tokens)
  const occurredAt = requireNow(request.occurredAt, 'occurredAt')
  return context.queue.run(async () => {
    if (context.state.vault.get(id)?.version !== expected) return null
    const retryId = randomUUID()
    const aad = retryAssociatedData(context.provider, context.clientId, id, retryId)
    const envelope = await sealTokens((plaintext) => context.protector.protect(plaintext, aad), tokens)
    context.state.retries.set(retryId, {
      retryId,
      providerAccountId: id,
      failedTokenTypes,
      occurredAt,
      attempts: 0,
      claim: null,
      envelope: copyEnvelope(envelope),
    })
    context.state.vault.delete(id)
    return { retryId }
  })
}

const MAX_LEASE_SECONDS = 24 * 60 * 60

export async function claimRevocationRetries(
  context: MemoryStoreContext,
  request: VaultRequest<'claimRevocationRetries'>,
): Promise<readonly ClaimedRevocationRetry[]> {
  const now = requireNow(request.now)
  const leaseSeconds = requireBoundedInteger(request.leaseSeconds, 'leaseSeconds', 1, MAX_LEASE_SECONDS)
  const limit = requireBoundedInteger(request.limit, 'limit', 1, 1000)
  return context.queue.run(async () => {
    const due = [...context.state.retries.values()]
      .filter((row) => row.claim === null || row.claim.until.getTime() <= now.getTime())
      .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || a.retryId.localeCompare(b.retryId))
      .slice(0, limit)
    // Open everything before claiming anything: a failure claims nothing.
    const opened = await Promise.all(
      due.map(async (row) => {
        const aad = retryAssociatedData(
          context.provider,
          context.clientId,
          row.providerAccountId,
          row.retryId,
        )
        const tokens = await openTokens(() => context.protector.unprotect(copyEnvelope(row.envelope), aad))
        return { row, tokens }
      }),
    )
    const until = new Date(now.getTime() + leaseSeconds * 1000)
    return opened.map(({ row, tokens }): ClaimedRevocationRetry => {
      const claimed = { ...row, attempts: row.attempts + 1, claim: { id: randomUUID(), until } }
      context.state.retries.set(row.retryId, claimed)
      return Object.freeze({
        retryId: row.retryId,
        providerAccountId: row.providerAccountId,
        failedTokenTypes: row.failedTokenTypes,
        occurredAt: new Date(row.occurredAt.getTime()),
        attempts: claimed.attempts,
        claim: claimed.claim.id,
        claimedUntil: new Date(until.getTime()),
        tokens,
      })
    })
  })
}

export async function completeRevocationRetry(
  context: MemoryStoreContext,
  request: VaultRequest<'completeRevocationRetry'>,
): Promise<boolean> {
  const retryId = requireId(request.retryId, 'retryId')
  const claim = requireId(request.claim, 'claim')
  return context.queue.run(() => {
    const row = context.state.retries.get(retryId)
    if (row?.claim?.id !== claim) return false
    return context.state.retries.delete(retryId)
  })
}
