import { ConfigurationError } from '../errors/portcullis-error.js'
import { duplicateRecord } from '../local-accounts/store-errors.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import { identityKey } from '../oauth/accounts/memory-state.js'
import { type MemoryOAuthAccountStore, memoryOAuthView } from '../oauth/accounts/memory-store.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import type { MemorySecurityLog } from '../security-log/memory.js'
import type { AccountDirectory, AccountSearchHit, AccountSearchQuery } from './directory.js'
import type {
  AddEmailAddressOutcome,
  EmailAddress,
  EmailAddressRequest,
  RemoveEmailAddressOutcome,
  RemoveEmailAddressRequest,
  SetPrimaryEmailAddressOutcome,
  VerifyEmailAddressOutcome,
  VerifyEmailAddressRequest,
} from './email-requests.js'
import * as emails from './memory-emails.js'
import * as passwords from './memory-passwords.js'
import { searchAccounts } from './memory-search.js'
import {
  type AccountRow,
  type MemoryAccountData,
  MemoryAccountTables,
  type PasswordRow,
} from './memory-tables.js'
import type { AccountStore, OAuthStoreRegistration } from './port.js'
import {
  type Account,
  accountRecord,
  type PasswordRecord,
  type SignInMethod,
  signInMethods,
} from './records.js'
import {
  type AccountChangeRequest,
  type AddPasswordOutcome,
  type AddPasswordRequest,
  type CreateAccountOutcome,
  type CreateAccountRequest,
  type DeleteAccountOutcome,
  type FindPasswordQuery,
  type IssueInviteRequest,
  type RemoveSignInMethodOutcome,
  type SetAccountStatusRequest,
  type SetPasswordRequest,
  validateAccountChange,
  validateAccountId,
  validateCreateAccount,
  validateIssueInvite,
  validateSetAccountStatus,
} from './requests.js'

export interface MemoryAccountStoreOptions {
  /**
   * The other in-memory stores that keep data of an account (`MemorySessionStore`,
   * `MemoryRefreshTokenStore`, `MemoryStepUpStore`, `MemoryApiKeyStore`, `MemoryTotpStore`,
   * `MemoryPasskeyStore`, `MemoryPasskeyChallengeStore`): `deleteAccount` removes the
   * account's records from them in the same step, as a shared SQL schema would in one transaction.
   * A `MemoryOneTimeCodeStore` among them also takes the `code` of a `createAccount` in its step.
   */
  readonly cascade?: readonly MemoryAccountData[]
  /**
   * Where epoch moves and deletions are announced: every change that moves an account's security epoch
   * (password change or reset, password removal, unlink, sign-out everywhere, disabling) and every
   * deletion publishes an `account` notice before the call resolves.
   */
  readonly notices?: RevocationNotices
  /**
   * Where the `outbox` entries of change requests are written, in the change's step and only when the
   * change happens. Without it, a request that carries entries is refused (`accounts.outbox_not_configured`).
   */
  readonly outbox?: MemoryMailOutbox
  /**
   * Where the `securityLog` entries of change requests are written (`WithSecurityLog`), in the change's
   * step and only when the change happens. Without it, a request that carries entries is refused
   * (`accounts.security_log_not_configured`) and `securityLogInTransaction` is false.
   */
  readonly securityLog?: MemorySecurityLog
}

/**
 * The in-memory `AccountStore`: accounts, their password methods and invites, and (through `oauth(...)`)
 * the identities, token vault and revocation retries of every provider, in one set of tables behind one
 * queue. Every operation runs alone and commits in one synchronous step, so concurrent callers see each
 * at one instant, like serializable transactions. For tests, development and single-process deployments.
 */
export class MemoryAccountStore implements AccountStore, AccountDirectory {
  readonly #tables: MemoryAccountTables
  readonly #codes: MemoryAccountData | undefined

  /** Whether changes take `securityLog` entries (a `MemorySecurityLog` was given). */
  get securityLogInTransaction(): boolean {
    return this.#tables.writesSecurityLog
  }

  constructor(options: MemoryAccountStoreOptions = {}) {
    this.#tables = new MemoryAccountTables(
      [...(options.cascade ?? [])],
      options.notices,
      options.outbox,
      options.securityLog,
    )
    this.#codes = options.cascade?.find((data) => typeof data.prepareIssue === 'function')
  }

  oauth(registration: OAuthStoreRegistration): MemoryOAuthAccountStore {
    return memoryOAuthView(this.#tables, registration)
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const id = validateAccountId(accountId)
    const account = this.#tables.accounts.get(id)
    return account === undefined ? null : accountRecord({ accountId: id, ...account })
  }

  async listSignInMethods(accountId: string): Promise<readonly SignInMethod[]> {
    const id = validateAccountId(accountId)
    const methods: SignInMethod[] = []
    const password = this.#tables.passwords.get(id)
    if (password !== undefined) {
      methods.push({
        kind: 'password',
        accountId: id,
        username: password.username,
        createdAt: password.createdAt,
        passwordChangedAt: password.passwordChangedAt,
      })
    }
    for (const [provider, state] of this.#tables.providers) {
      const providerAccountId = state.byAccount.get(id)
      const link = providerAccountId === undefined ? undefined : state.links.get(providerAccountId)
      if (link === undefined) continue
      methods.push({
        kind: 'identity',
        accountId: id,
        providerAccountId: link.providerAccountId,
        provider,
        issuer: link.issuer,
        subject: link.subject,
        scopes: link.grant.scopes,
        linkedAt: link.linkedAt,
        updatedAt: link.updatedAt,
      })
    }
    for (const data of this.#tables.cascade) methods.push(...(data.signInMethods?.(id) ?? []))
    return signInMethods(methods)
  }

  async createAccount(request: CreateAccountRequest): Promise<CreateAccountOutcome> {
    const { accountId, username, passwordHash, now, inviteDigest, emailAddress, code, outbox } =
      validateCreateAccount(request)
    const tables = this.#tables
    const codes = this.#codes
    if (code !== undefined && codes === undefined) {
      throw new ConfigurationError(
        'accounts.codes_not_configured',
        'this MemoryAccountStore has no code store: pass the MemoryOneTimeCodeStore in { cascade } to issue codes with sign-ups',
      )
    }
    return tables.queue.run((): CreateAccountOutcome => {
      const writeOutbox = tables.stageOutbox(outbox)
      const invite = inviteDigest === undefined ? undefined : tables.invites.get(inviteDigest)
      if (
        inviteDigest !== undefined &&
        (invite === undefined || invite.consumed || invite.expiresAt <= now)
      ) {
        return { outcome: 'invite-invalid' }
      }
      if (tables.byUsername.has(username)) return { outcome: 'username-taken' }
      if (tables.accounts.has(accountId)) throw duplicateRecord('an account with this id')
      if (emailAddress !== undefined && tables.byVerifiedEmail.has(emailAddress)) {
        return { outcome: 'address-taken' }
      }
      const writeCode = code === undefined ? () => {} : (codes?.prepareIssue?.(code) ?? (() => {}))
      const account: AccountRow = { securityEpoch: 1, status: 'active', createdAt: now, updatedAt: now }
      const password: PasswordRow = {
        username,
        passwordHash,
        createdAt: now,
        updatedAt: now,
        passwordChangedAt: now,
      }
      tables.accounts.set(accountId, account)
      tables.passwords.set(accountId, password)
      tables.byUsername.set(username, accountId)
      if (emailAddress !== undefined) {
        tables.emails.set(accountId, [
          { address: emailAddress, verifiedAt: null, primary: true, createdAt: now },
        ])
      }
      if (invite !== undefined) invite.consumed = true
      writeCode()
      writeOutbox()
      return { outcome: 'created', account: passwords.passwordRecordOf(accountId, account, password) }
    })
  }

  async findPassword(query: FindPasswordQuery): Promise<PasswordRecord | null> {
    return passwords.findPassword(this.#tables, query)
  }

  async setPassword(request: SetPasswordRequest): Promise<PasswordRecord | null> {
    return passwords.setPassword(this.#tables, request)
  }

  async addPassword(request: AddPasswordRequest): Promise<AddPasswordOutcome> {
    return passwords.addPassword(this.#tables, request)
  }

  async removePassword(request: AccountChangeRequest): Promise<RemoveSignInMethodOutcome> {
    return passwords.removePassword(this.#tables, request)
  }

  async bumpSecurityEpoch(request: AccountChangeRequest): Promise<number | null> {
    const { accountId, now, outbox, securityLog } = validateAccountChange(request)
    const tables = this.#tables
    return tables.queue.run(async () => {
      const writeOutbox = tables.stageOutbox(outbox)
      const writeLog = tables.stageSecurityLog(securityLog)
      const securityEpoch = tables.bumpEpoch(accountId, now)
      if (securityEpoch === null) return null
      writeOutbox()
      writeLog()
      await tables.announce(accountId)
      return securityEpoch
    })
  }

  async setAccountStatus(request: SetAccountStatusRequest): Promise<Account | null> {
    const { accountId, status, now, outbox, securityLog } = validateSetAccountStatus(request)
    const tables = this.#tables
    return tables.queue.run(async () => {
      const writeOutbox = tables.stageOutbox(outbox)
      const writeLog = tables.stageSecurityLog(securityLog)
      const account = tables.accounts.get(accountId)
      if (account === undefined) return null
      const disabling = status === 'disabled' && account.status !== 'disabled'
      const next: AccountRow = {
        ...account,
        status,
        securityEpoch: account.securityEpoch + (disabling ? 1 : 0),
        updatedAt: now,
      }
      tables.accounts.set(accountId, next)
      writeOutbox()
      writeLog()
      if (disabling) await tables.announce(accountId)
      return accountRecord({ accountId, ...next })
    })
  }

  async deleteAccount(request: AccountChangeRequest): Promise<DeleteAccountOutcome> {
    const { accountId, outbox, securityLog } = validateAccountChange(request)
    const tables = this.#tables
    return tables.queue.run(async (): Promise<DeleteAccountOutcome> => {
      const writeOutbox = tables.stageOutbox(outbox)
      const writeLog = tables.stageSecurityLog(securityLog)
      if (!tables.accounts.has(accountId)) return { outcome: 'not-found' }
      const retained: string[] = []
      for (const state of tables.providers.values()) {
        const providerAccountId = state.byAccount.get(accountId)
        if (providerAccountId !== undefined && state.vault.has(providerAccountId))
          retained.push(providerAccountId)
      }
      if (retained.length > 0)
        return { outcome: 'tokens-retained', providerAccountIds: Object.freeze(retained) }
      for (const holder of tables.cascade) {
        const refusal = holder.refuseDeletion?.(accountId)
        if (refusal !== undefined) return refusal
      }
      const password = tables.passwords.get(accountId)
      if (password !== undefined) tables.byUsername.delete(password.username)
      tables.passwords.delete(accountId)
      for (const state of tables.providers.values()) {
        const providerAccountId = state.byAccount.get(accountId)
        const link = providerAccountId === undefined ? undefined : state.links.get(providerAccountId)
        if (providerAccountId === undefined || link === undefined) continue
        state.links.delete(providerAccountId)
        state.byIdentity.delete(identityKey(link.issuer, link.subject))
        state.byAccount.delete(accountId)
        state.vault.delete(providerAccountId)
      }
      emails.deleteEmailAddresses(tables, accountId)
      tables.accounts.delete(accountId)
      for (const holder of tables.cascade) holder.deleteAccountData(accountId)
      writeOutbox()
      writeLog()
      await tables.announce(accountId)
      return { outcome: 'deleted' }
    })
  }

  async searchAccounts(query: AccountSearchQuery): Promise<readonly AccountSearchHit[]> {
    return searchAccounts(this.#tables, query)
  }

  async listEmailAddresses(accountId: string): Promise<readonly EmailAddress[]> {
    return emails.listEmailAddresses(this.#tables, accountId)
  }

  async findAccountByVerifiedEmail(address: string): Promise<Account | null> {
    return emails.findAccountByVerifiedEmail(this.#tables, address)
  }

  async addEmailAddress(request: EmailAddressRequest): Promise<AddEmailAddressOutcome> {
    return emails.addEmailAddress(this.#tables, request)
  }

  async verifyEmailAddress(request: VerifyEmailAddressRequest): Promise<VerifyEmailAddressOutcome> {
    return emails.verifyEmailAddress(this.#tables, request)
  }

  async setPrimaryEmailAddress(request: EmailAddressRequest): Promise<SetPrimaryEmailAddressOutcome> {
    return emails.setPrimaryEmailAddress(this.#tables, request)
  }

  async removeEmailAddress(request: RemoveEmailAddressRequest): Promise<RemoveEmailAddressOutcome> {
    return emails.removeEmailAddress(this.#tables, request)
  }

  async issueInvite(request: IssueInviteRequest): Promise<void> {
    const { digest, expiresAt } = validateIssueInvite(request)
    const tables = this.#tables
    await tables.queue.run(() => {
      if (tables.invites.has(digest)) throw duplicateRecord('an invite with this digest')
      tables.invites.set(digest, { expiresAt, consumed: false })
    })
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryAccountStore { accounts: ${this.#tables.accounts.size}, invites: ${this.#tables.invites.size} }`
  }
}
