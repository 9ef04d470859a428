import { randomUUID } from 'node:crypto'
import { MemoryAccountTables } from '../../accounts/memory-tables.js'
import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../../mail/memory-outbox.js'
import { type EnvelopeLocationCount, emptyTally, tallyEnvelope } from '../../protection/inventory.js'
import type { EnvelopeCounting } from '../../protection/memory-inventory.js'
import type { OAuthTransactionProtector } from '../../protection/protector.js'
import { AccountLinkError, invalidInput, OAuthAccountError, OAuthAccountErrorCodes } from './errors.js'
import { requireId } from './input.js'
import { memoryInspector, type OAuthVaultInspector } from './inspector.js'
import * as directory from './memory-directory.js'
import * as reencryption from './memory-reencryption.js'
import { identityKey, type LinkRow, toLink, type VaultRow } from './memory-state.js'
import * as vault from './memory-vault.js'
import type { OAuthAccountStore } from './port.js'
import type {
  AccountRecord,
  ClaimedRevocationRetry,
  LinkedProviderAccount,
  LinkOutcome,
  OAuthLoginOutcome,
  ProviderTokenReference,
  ScopeUpgradeOutcome,
  StoredProviderTokens,
  UnlinkOutcome,
} from './records.js'
import type {
  ListStaleEnvelopesRequest,
  OAuthVaultReencryption,
  RewriteEnvelopeRequest,
  StaleVaultEnvelope,
} from './reencryption-port.js'
import {
  optionalOutbox,
  optionalTokenSet,
  requireGrant,
  requireIdentity,
  requireNow,
} from './request-input.js'
import type { ProviderTokenSet } from './token-set.js'

export interface MemoryOAuthAccountStoreOptions {
  readonly provider: string
  readonly clientId: string
  /** Required: retained tokens and retry records are only ever kept as envelopes. */
  readonly protector: OAuthTransactionProtector
  /**
   * For a store constructed directly: where the security notifications of `link` and `unlink` are
   * written, in the change's step. A view (`MemoryAccountStore.oauth`) writes into its account store's
   * outbox instead. Without one, a change that carries entries is refused (`accounts.outbox_not_configured`).
   */
  readonly outbox?: MemoryMailOutbox
}

const STORE_OPTIONS: OptionsShape<MemoryOAuthAccountStoreOptions> = {
  provider: { required: true, kind: 'string', code: 'oauth.account.store_options' },
  clientId: { required: true, kind: 'string', code: 'oauth.account.store_options' },
  protector: { required: true, kind: 'object', code: 'oauth.account.protector_required' },
  outbox: { kind: 'object', code: 'oauth.account.store_options' },
}

type Request<K extends keyof OAuthAccountStore> = OAuthAccountStore[K] extends (request: infer R) => unknown
  ? R
  : never

const contexts = new WeakMap<MemoryOAuthAccountStore, vault.MemoryStoreContext>()

/** Set while `memoryOAuthView` constructs a view over existing tables. */
let sharedTables: MemoryAccountTables | undefined

/**
 * The provider view of a `MemoryAccountStore`'s tables (what `MemoryAccountStore.oauth` returns), so
 * the accounts, their passwords and the identities of every provider live in one schema.
 */
export function memoryOAuthView(
  tables: MemoryAccountTables,
  options: MemoryOAuthAccountStoreOptions,
): MemoryOAuthAccountStore {
  sharedTables = tables
  try {
    return new MemoryOAuthAccountStore(options)
  } finally {
    sharedTables = undefined
  }
}

/**
 * The in-memory `OAuthAccountStore` for one provider registration. Operations run one at a time and
 * commit only after every await succeeded, so each behaves like a serializable transaction under
 * concurrent async callers. For tests, development and single-process deployments. Constructed directly
 * it keeps its own accounts; `new MemoryAccountStore().oauth({ ... })` gives the view of a store whose
 * accounts also have passwords and identities of other providers. As an
 * `OAuthVaultReencryption` it lets `reencryptOAuthVault` re-seal its envelopes after a key rotation.
 */
export class MemoryOAuthAccountStore implements OAuthAccountStore, OAuthVaultReencryption, EnvelopeCounting {
  readonly provider: string
  readonly clientId: string
  readonly #context: vault.MemoryStoreContext

  constructor(options: MemoryOAuthAccountStoreOptions) {
    readOptions(options, 'MemoryOAuthAccountStore', STORE_OPTIONS)
    const protector = options.protector as Partial<OAuthTransactionProtector> | undefined
    if (typeof protector?.protect !== 'function' || typeof protector.unprotect !== 'function') {
      throw new ConfigurationError(
        'oauth.account.protector_required',
        'MemoryOAuthAccountStore needs a protector',
      )
    }
    try {
      this.provider = requireId(options.provider, 'provider')
      this.clientId = requireId(options.clientId, 'clientId')
    } catch (error) {
      throw new ConfigurationError('oauth.account.store_options', (error as Error).message)
    }
    const tables = sharedTables ?? new MemoryAccountTables([], undefined, options.outbox)
    this.#context = {
      provider: this.provider,
      clientId: this.clientId,
      protector: options.protector,
      tables,
      state: tables.stateOf(this.provider),
      queue: tables.queue,
    }
    contexts.set(this, this.#context)
  }

  getAccount(accountId: string): Promise<AccountRecord | null> {
    return directory.getAccount(this.#context, accountId)
  }

  async login(request: Request<'login'>): Promise<OAuthLoginOutcome> {
    const identity = requireIdentity(request?.identity, this.provider)
    const grant = requireGrant(request.grant)
    const tokens = optionalTokenSet(request.tokens)
    const now = requireNow(request.now)
    if (typeof request.provisionUnknown !== 'boolean')
      throw invalidInput('provisionUnknown must be a boolean')
    const { state, tables, queue } = this.#context
    return queue.run(async () => {
      const existing = state.byIdentity.get(identityKey(identity.issuer, identity.subject))
      const current = existing === undefined ? undefined : state.links.get(existing)
      if (current !== undefined) {
        const sealed = await this.#seal(current.providerAccountId, tokens)
        const row = {
          ...current,
          grant,
          email: identity.email,
          emailVerified: identity.emailVerified,
          updatedAt: now,
        }
        state.links.set(row.providerAccountId, row)
        return {
          provisioned: false,
          link: toLink(this.provider, row),
          tokens: this.#commitVault(row, sealed),
        }
      }
      if (!request.provisionUnknown) {
        throw new OAuthAccountError(
          OAuthAccountErrorCodes.unknownIdentity,
          'no account is linked to this identity',
        )
      }
      const accountId = `acct_${randomUUID()}`
      const row: LinkRow = {
        providerAccountId: `pa_${randomUUID()}`,
        accountId,
        ...identity,
        grant,
        linkedAt: now,
        updatedAt: now,
      }
      const sealed = await this.#seal(row.providerAccountId, tokens)
      tables.accounts.set(accountId, { securityEpoch: 1, status: 'active', createdAt: now, updatedAt: now })
      this.#insertLink(row)
      return { provisioned: true, link: toLink(this.provider, row), tokens: this.#commitVault(row, sealed) }
    })
  }

  async link(request: Request<'link'>): Promise<LinkOutcome> {
    const accountId = requireId(request?.accountId, 'accountId')
    const identity = requireIdentity(request.identity, this.provider)
    const grant = requireGrant(request.grant)
    const tokens = optionalTokenSet(request.tokens)
    const now = requireNow(request.now)
    const outbox = optionalOutbox(request.outbox)
    const { state, tables, queue } = this.#context
    return queue.run(async () => {
      const writeOutbox = tables.stageOutbox(outbox)
      if (!tables.accounts.has(accountId)) throw unknownAccount()
      const owned = state.byIdentity.get(identityKey(identity.issuer, identity.subject))
      const current = owned === undefined ? undefined : state.links.get(owned)
      if (current !== undefined && current.accountId !== accountId)
        throw new AccountLinkError('identity-linked-elsewhere')
      if (current !== undefined) {
        const sealed = await this.#seal(current.providerAccountId, tokens)
        const row = {
          ...current,
          grant,
          email: identity.email,
          emailVerified: identity.emailVerified,
          updatedAt: now,
        }
        state.links.set(row.providerAccountId, row)
        return {
          status: 'relinked',
          link: toLink(this.provider, row),
          tokens: this.#commitVault(row, sealed),
        }
      }
      if (state.byAccount.has(accountId)) throw new AccountLinkError('provider-already-linked')
      const row: LinkRow = {
        providerAccountId: `pa_${randomUUID()}`,
        accountId,
        ...identity,
        grant,
        linkedAt: now,
        updatedAt: now,
      }
      const sealed = await this.#seal(row.providerAccountId, tokens)
      if (!tables.accounts.has(accountId)) throw unknownAccount()
      this.#insertLink(row)
      writeOutbox()
      return { status: 'linked', link: toLink(this.provider, row), tokens: this.#commitVault(row, sealed) }
    })
  }

  async upgradeScopes(request: Request<'upgradeScopes'>): Promise<ScopeUpgradeOutcome> {
    const accountId = requireId(request?.accountId, 'accountId')
    const providerAccountId = requireId(request.providerAccountId, 'providerAccountId')
    const identity = requireIdentity(request.identity, this.provider)
    const grant = requireGrant(request.grant)
    const tokens = optionalTokenSet(request.tokens)
    const now = requireNow(request.now)
    const { state, queue } = this.#context
    return queue.run(async () => {
      const current = state.links.get(providerAccountId)
      if (current === undefined || current.accountId !== accountId) {
        throw new OAuthAccountError(
          OAuthAccountErrorCodes.linkNotFound,
          'the account has no such provider link',
        )
      }
      if (current.issuer !== identity.issuer || current.subject !== identity.subject) {
        throw new OAuthAccountError(
          OAuthAccountErrorCodes.identityMismatch,
          'the identity is not the linked identity',
        )
      }
      const sealed = await this.#seal(providerAccountId, tokens)
      const row = {
        ...current,
        grant,
        email: identity.email,
        emailVerified: identity.emailVerified,
        updatedAt: now,
      }
      state.links.set(providerAccountId, row)
      return { link: toLink(this.provider, row), tokens: this.#commitVault(row, sealed) }
    })
  }

  async unlink(request: Request<'unlink'>): Promise<UnlinkOutcome> {
    const accountId = requireId(request?.accountId, 'accountId')
    const provider = requireId(request.provider, 'provider')
    const providerAccountId = requireId(request.providerAccountId, 'providerAccountId')
    const outbox = optionalOutbox(request.outbox)
    const now = new Date()
    const { state, tables, queue } = this.#context
    return queue.run(async (): Promise<UnlinkOutcome> => {
      const writeOutbox = tables.stageOutbox(outbox)
      const current = state.links.get(providerAccountId)
      if (current === undefined || current.accountId !== accountId || provider !== this.provider) {
        return { status: 'not-found' }
      }
      if (tables.methodCount(accountId) <= 1) return { status: 'final-method' }
      state.links.delete(providerAccountId)
      state.byIdentity.delete(identityKey(current.issuer, current.subject))
      state.byAccount.delete(accountId)
      state.vault.delete(providerAccountId)
      const securityEpoch = tables.bumpEpoch(accountId, now) ?? 1
      writeOutbox()
      await tables.announce(accountId)
      return { status: 'unlinked', providerAccountId, securityEpoch }
    })
  }

  async resolveLink(request: Request<'resolveLink'>): Promise<LinkedProviderAccount | null> {
    const accountId = requireId(request?.accountId, 'accountId')
    const provider = requireId(request.provider, 'provider')
    if (provider !== this.provider) return null
    const { state } = this.#context
    const id = state.byAccount.get(accountId)
    const row = id === undefined ? undefined : state.links.get(id)
    return row === undefined ? null : toLink(this.provider, row)
  }

  getTokens(providerAccountId: string): Promise<StoredProviderTokens | null> {
    return vault.getTokens(this.#context, providerAccountId)
  }

  replaceTokens(request: Request<'replaceTokens'>): Promise<ProviderTokenReference | null> {
    return vault.replaceTokens(this.#context, request)
  }

  discardTokens(request: Request<'discardTokens'>): Promise<boolean> {
    return vault.discardTokens(this.#context, request)
  }

  stageRevocationRetry(
    request: Request<'stageRevocationRetry'>,
  ): Promise<{ readonly retryId: string } | null> {
    return vault.stageRevocationRetry(this.#context, request)
  }

  claimRevocationRetries(
    request: Request<'claimRevocationRetries'>,
  ): Promise<readonly ClaimedRevocationRetry[]> {
    return vault.claimRevocationRetries(this.#context, request)
  }

  completeRevocationRetry(request: Request<'completeRevocationRetry'>): Promise<boolean> {
    return vault.completeRevocationRetry(this.#context, request)
  }

  listStaleEnvelopes(request: ListStaleEnvelopesRequest): Promise<readonly StaleVaultEnvelope[]> {
    return reencryption.listStaleEnvelopes(this.#context, request)
  }

  rewriteEnvelope(request: RewriteEnvelopeRequest): Promise<boolean> {
    return reencryption.rewriteEnvelope(this.#context, request)
  }

  /**
   * The envelopes of this provider's rows (`MemoryEnvelopeInventory`): retained tokens and staged
   * revocation retries, which never expire (a retry is gone once completed).
   */
  countEnvelopes(_now: Date): readonly EnvelopeLocationCount[] {
    const vaultTally = emptyTally()
    for (const row of this.#context.state.vault.values()) tallyEnvelope(vaultTally, row.envelope)
    const retryTally = emptyTally()
    for (const row of this.#context.state.retries.values()) tallyEnvelope(retryTally, row.envelope)
    const method = 'in-memory rows of the provider'
    return [
      { location: 'oauth-accounts.vault', holding: 'oauth-token-vault', ...vaultTally, method },
      { location: 'oauth-accounts.retries', holding: 'oauth-revocation-retry', ...retryTally, method },
    ]
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryOAuthAccountStore { provider: ${JSON.stringify(this.provider)}, links: ${this.#context.state.links.size} }`
  }

  async #seal(providerAccountId: string, tokens: ProviderTokenSet | null): Promise<VaultRow | null> {
    return tokens === null ? null : vault.sealVaultRow(this.#context, providerAccountId, tokens)
  }

  /** Stores a sealed row, or discards retained tokens when the caller retains none. */
  #commitVault(row: LinkRow, sealed: VaultRow | null): ProviderTokenReference | null {
    if (sealed === null) {
      this.#context.state.vault.delete(row.providerAccountId)
      return null
    }
    this.#context.state.vault.set(row.providerAccountId, sealed)
    return vault.referenceOf(row.providerAccountId, sealed)
  }

  #insertLink(row: LinkRow): void {
    const { state } = this.#context
    state.links.set(row.providerAccountId, row)
    state.byIdentity.set(identityKey(row.issuer, row.subject), row.providerAccountId)
    state.byAccount.set(row.accountId, row.providerAccountId)
  }
}

function unknownAccount(): OAuthAccountError {
  return new OAuthAccountError(OAuthAccountErrorCodes.unknownAccount, 'the account does not exist')
}

/** The stored form of a memory store, for conformance checks that vault envelopes are ciphertext bound to their row. */
export function inspectMemoryOAuthAccountStore(store: MemoryOAuthAccountStore): OAuthVaultInspector {
  const context = contexts.get(store)
  if (context === undefined) {
    throw new ConfigurationError('oauth.account.store_options', 'not a MemoryOAuthAccountStore')
  }
  return memoryInspector(context)
}
