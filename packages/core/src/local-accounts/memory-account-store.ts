import type { RevocationNotices } from '../revocation/revocation-notices.js'
import {
  type BumpSecurityEpochRequest,
  type CreateLocalAccountOutcome,
  type CreateLocalAccountRequest,
  type FindLocalAccountQuery,
  type IssueInviteRequest,
  type LocalAccountRecord,
  type LocalAccountStore,
  localAccountRecord,
  type SetPasswordRequest,
  validateBumpSecurityEpoch,
  validateCreateLocalAccount,
  validateFindLocalAccount,
  validateIssueInvite,
  validateSetPassword,
} from './account-store.js'
import { duplicateRecord } from './store-errors.js'

export interface MemoryLocalAccountStoreOptions {
  /** Where epoch moves are announced (an `account` notice, before the call resolves). */
  readonly notices?: RevocationNotices
}

interface Invite {
  readonly expiresAt: Date
  consumed: boolean
}

/**
 * In-memory `LocalAccountStore` for tests and single-process development. Each operation validates its
 * input, then reads and writes in one synchronous step, so concurrent calls have exactly one winner.
 * Nothing is shared between instances or kept across restarts.
 */
export class MemoryLocalAccountStore implements LocalAccountStore {
  readonly #accounts = new Map<string, LocalAccountRecord>()
  readonly #byUsername = new Map<string, string>()
  readonly #invites = new Map<string, Invite>()
  readonly #notices: RevocationNotices | undefined

  constructor(options: MemoryLocalAccountStoreOptions = {}) {
    this.#notices = options.notices
  }

  async createAccount(request: CreateLocalAccountRequest): Promise<CreateLocalAccountOutcome> {
    const { accountId, username, passwordHash, now, inviteDigest } = validateCreateLocalAccount(request)
    const invite = inviteDigest === undefined ? undefined : this.#invites.get(inviteDigest)
    if (inviteDigest !== undefined && (invite === undefined || invite.consumed || invite.expiresAt <= now)) {
      return { outcome: 'invite-invalid' }
    }
    if (this.#byUsername.has(username)) return { outcome: 'username-taken' }
    if (this.#accounts.has(accountId)) throw duplicateRecord('an account with this id')
    const account = localAccountRecord({
      accountId,
      username,
      passwordHash,
      securityEpoch: 1,
      createdAt: now,
      updatedAt: now,
      passwordChangedAt: now,
    })
    this.#accounts.set(accountId, account)
    this.#byUsername.set(username, accountId)
    if (invite !== undefined) invite.consumed = true
    return { outcome: 'created', account: localAccountRecord(account) }
  }

  async findAccount(query: FindLocalAccountQuery): Promise<LocalAccountRecord | null> {
    const key = validateFindLocalAccount(query)
    const accountId = 'username' in key ? this.#byUsername.get(key.username) : key.accountId
    const account = accountId === undefined ? undefined : this.#accounts.get(accountId)
    return account === undefined ? null : localAccountRecord(account)
  }

  async setPassword(request: SetPasswordRequest): Promise<LocalAccountRecord | null> {
    const change = validateSetPassword(request)
    const account = this.#accounts.get(change.accountId)
    if (account === undefined) return null
    if (change.expectedPasswordHash !== undefined && account.passwordHash !== change.expectedPasswordHash) {
      return null
    }
    const updated = localAccountRecord({
      ...account,
      passwordHash: change.passwordHash,
      securityEpoch: account.securityEpoch + (change.bumpEpoch ? 1 : 0),
      updatedAt: change.now,
      passwordChangedAt: change.rehash ? account.passwordChangedAt : change.now,
    })
    this.#accounts.set(account.accountId, updated)
    if (change.bumpEpoch) await this.#notices?.publish({ kind: 'account', accountId: account.accountId })
    return localAccountRecord(updated)
  }

  async bumpSecurityEpoch(request: BumpSecurityEpochRequest): Promise<number | null> {
    const { accountId, now } = validateBumpSecurityEpoch(request)
    const account = this.#accounts.get(accountId)
    if (account === undefined) return null
    const securityEpoch = account.securityEpoch + 1
    this.#accounts.set(accountId, localAccountRecord({ ...account, securityEpoch, updatedAt: now }))
    await this.#notices?.publish({ kind: 'account', accountId })
    return securityEpoch
  }

  async issueInvite(request: IssueInviteRequest): Promise<void> {
    const { digest, expiresAt } = validateIssueInvite(request)
    if (this.#invites.has(digest)) throw duplicateRecord('an invite with this digest')
    this.#invites.set(digest, { expiresAt, consumed: false })
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryLocalAccountStore { accounts: ${this.#accounts.size}, invites: ${this.#invites.size} }`
  }
}
