import type { ProtectedEnvelope } from '../../protection/protector.js'
import type { LinkedProviderAccount, ProviderGrant, RevocationTokenType } from './records.js'

export interface LinkRow {
  readonly providerAccountId: string
  readonly accountId: string
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly emailVerified: boolean | null
  readonly grant: ProviderGrant
  readonly linkedAt: Date
  readonly updatedAt: Date
}

export interface VaultRow {
  readonly version: number
  readonly envelope: ProtectedEnvelope
  readonly scopes: readonly string[]
  readonly expiresAt: Date
}

export interface RetryRow {
  readonly retryId: string
  readonly providerAccountId: string
  readonly failedTokenTypes: readonly RevocationTokenType[]
  readonly occurredAt: Date
  readonly attempts: number
  readonly claim: { readonly id: string; readonly until: Date } | null
  readonly envelope: ProtectedEnvelope
}

/** The rows of one provider's store. `lastVersion` only grows, so vault versions never restart. */
export interface StoreState {
  readonly links: Map<string, LinkRow>
  readonly byIdentity: Map<string, string>
  readonly byAccount: Map<string, string>
  readonly vault: Map<string, VaultRow>
  readonly retries: Map<string, RetryRow>
  lastVersion: number
}

export function emptyState(): StoreState {
  return {
    links: new Map(),
    byIdentity: new Map(),
    byAccount: new Map(),
    vault: new Map(),
    retries: new Map(),
    lastVersion: 0,
  }
}

export function identityKey(issuer: string, subject: string): string {
  return JSON.stringify([issuer, subject])
}

export function copyEnvelope(envelope: ProtectedEnvelope): ProtectedEnvelope {
  return { keyVersion: envelope.keyVersion, ciphertext: Uint8Array.from(envelope.ciphertext) }
}

/**
 * Runs tasks one after another. Each memory-store operation is one task: it does all its awaiting
 * (sealing, opening) first and then commits synchronously, so a failure leaves no partial state and
 * concurrent callers observe operations one at a time, like serializable transactions.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(task)
    this.#tail = result.catch(() => undefined)
    return result
  }
}

/** The public, frozen view of a link row. */
export function toLink(provider: string, row: LinkRow): LinkedProviderAccount {
  return Object.freeze({
    providerAccountId: row.providerAccountId,
    accountId: row.accountId,
    provider,
    issuer: row.issuer,
    subject: row.subject,
    email: row.email,
    emailVerified: row.emailVerified,
    grant: row.grant,
    linkedAt: new Date(row.linkedAt.getTime()),
    updatedAt: new Date(row.updatedAt.getTime()),
  })
}
