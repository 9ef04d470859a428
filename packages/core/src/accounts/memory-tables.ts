import type { NewOneTimeCode } from '../codes/port.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { emptyState, SerialQueue, type StoreState } from '../oauth/accounts/memory-state.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { SecurityLogEntry } from '../security-log/entry.js'
import type { MemorySecurityLog } from '../security-log/memory.js'
import type { AccountStatus, SignInMethod } from './records.js'
import type { DeleteAccountOutcome } from './requests.js'

/** One account in memory. */
export interface AccountRow {
  readonly securityEpoch: number
  readonly status: AccountStatus
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** An account's password method in memory. */
export interface PasswordRow {
  readonly username: string
  readonly passwordHash: string
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly passwordChangedAt: Date
}

/** An email address of an account in memory. */
export interface EmailRow {
  readonly address: string
  readonly verifiedAt: Date | null
  readonly primary: boolean
  readonly createdAt: Date
}

export interface InviteRow {
  readonly expiresAt: Date
  consumed: boolean
}

/**
 * Data of an account kept by another in-memory store (sessions, refresh-token families, step-up
 * credentials, API keys). `MemoryAccountStore({ cascade })` removes it in the same synchronous step that
 * removes the account, as one transaction over a shared SQL schema would.
 */
export interface MemoryAccountData {
  /** Removes everything this store keeps for the account; how many records went. Synchronous. */
  deleteAccountData(accountId: string): number
  /** The sign-in methods this store keeps for the account (usable passkeys), listed and counted with the others. */
  signInMethods?(accountId: string): readonly SignInMethod[]
  /** Called once by `MemoryAccountStore`: the store that can now count every method of an account. */
  joinAccountTables?(methods: MemorySignInMethods): void
  /**
   * Why the account may not be deleted now (an organization it is the only owner of), checked in the
   * deleting step before anything goes; undefined when nothing stands in the way. Synchronous.
   */
  refuseDeletion?(accountId: string): DeleteAccountOutcome | undefined
  /**
   * Checks a one-time code a `createAccount` request carries and returns its synchronous write, called
   * in the sign-up's step right after the account is made (`MemoryOneTimeCodeStore` implements it), so
   * the account and its code land together. Throws for a code it cannot store.
   */
  prepareIssue?(code: NewOneTimeCode): () => void
}

/** What a cascaded store may ask the account tables: whether an account exists, and its method count. */
export interface MemorySignInMethods {
  hasAccount(accountId: string): boolean
  methodCount(accountId: string): number
  /** The account holding this normalized address verified, or undefined. */
  verifiedHolderOf(address: string): string | undefined
}

/**
 * The in-memory tables of one account schema: accounts, password methods, invites, and per provider the
 * identity links, token vault and revocation retries. `MemoryAccountStore` and every provider view it
 * hands out (`oauth(...)`) share one instance and one queue, so each operation runs alone: it does its
 * awaiting (sealing, opening) first and then commits synchronously, like a serializable transaction.
 */
export class MemoryAccountTables implements MemorySignInMethods {
  readonly accounts = new Map<string, AccountRow>()
  readonly passwords = new Map<string, PasswordRow>()
  readonly byUsername = new Map<string, string>()
  readonly invites = new Map<string, InviteRow>()
  /** Each account's addresses, and the one account each verified address belongs to. */
  readonly emails = new Map<string, EmailRow[]>()
  readonly byVerifiedEmail = new Map<string, string>()
  readonly providers = new Map<string, StoreState>()
  readonly queue = new SerialQueue()
  readonly cascade: readonly MemoryAccountData[]
  readonly #notices: RevocationNotices | undefined
  readonly #outbox: MemoryMailOutbox | undefined
  readonly #securityLog: MemorySecurityLog | undefined

  constructor(
    cascade: readonly MemoryAccountData[] = [],
    notices?: RevocationNotices,
    outbox?: MemoryMailOutbox,
    securityLog?: MemorySecurityLog,
  ) {
    this.cascade = cascade
    this.#notices = notices
    this.#outbox = outbox
    this.#securityLog = securityLog
    for (const data of cascade) data.joinAccountTables?.(this)
  }

  hasAccount(accountId: string): boolean {
    return this.accounts.has(accountId)
  }

  verifiedHolderOf(address: string): string | undefined {
    return this.byVerifiedEmail.get(address)
  }

  /**
   * Publishes the account's revocation notice (its epoch moved, or it was deleted). Called in the queued
   * step right after the change, so the notice is delivered before the operation resolves.
   */
  async announce(accountId: string): Promise<void> {
    await this.#notices?.publish({ kind: 'account', accountId })
  }

  /**
   * Checks a change's (validated) outbox entries against the outbox and returns the function that writes
   * them. Call it at the start of the queued step and the returned function right after the change,
   * before any `await`: the change and its messages land together or not at all. Entries without an
   * outbox configured are refused (a message must never be dropped silently).
   */
  stageOutbox(entries: readonly OutboxEntry[]): () => void {
    if (entries.length === 0) return () => {}
    if (this.#outbox === undefined) {
      throw new ConfigurationError(
        'accounts.outbox_not_configured',
        'this MemoryAccountStore has no outbox: pass { outbox: MemoryMailOutbox } to write messages with changes',
      )
    }
    return this.#outbox.prepareWrite(entries)
  }

  /** Whether `stageSecurityLog` can take entries (a `MemorySecurityLog` was given). */
  get writesSecurityLog(): boolean {
    return this.#securityLog !== undefined
  }

  /**
   * As `stageOutbox`, for a change's security-log entries (`WithSecurityLog`): checked now, written by
   * the returned function in the change's step. Entries without a log configured are refused.
   */
  stageSecurityLog(entries: readonly SecurityLogEntry[]): () => void {
    if (entries.length === 0) return () => {}
    if (this.#securityLog === undefined) {
      throw new ConfigurationError(
        'accounts.security_log_not_configured',
        'this MemoryAccountStore has no security log: pass { securityLog: MemorySecurityLog } to write entries with changes',
      )
    }
    return this.#securityLog.prepareAppend(entries)
  }

  /** The link, vault and retry rows of one provider (created on first use). */
  stateOf(provider: string): StoreState {
    let state = this.providers.get(provider)
    if (state === undefined) {
      state = emptyState()
      this.providers.set(provider, state)
    }
    return state
  }

  /**
   * Every sign-in method of the account: its password, one identity per linked provider, and what the
   * cascaded stores count (usable passkeys).
   */
  methodCount(accountId: string): number {
    let count = this.passwords.has(accountId) ? 1 : 0
    for (const state of this.providers.values()) if (state.byAccount.has(accountId)) count += 1
    for (const data of this.cascade) count += data.signInMethods?.(accountId).length ?? 0
    return count
  }

  /** Moves the account's epoch (and `updatedAt`); the new epoch, or null for an unknown account. */
  bumpEpoch(accountId: string, now: Date): number | null {
    const account = this.accounts.get(accountId)
    if (account === undefined) return null
    const securityEpoch = account.securityEpoch + 1
    this.accounts.set(accountId, { ...account, securityEpoch, updatedAt: now })
    return securityEpoch
  }
}
