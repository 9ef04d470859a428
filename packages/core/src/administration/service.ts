import { deleteWithStagedRevocations, type ProviderTokenRevocations } from '../accounts/deletion.js'
import type { AccountDirectory, AccountSearchHit, AccountSearchQuery } from '../accounts/directory.js'
import type { AccountStore } from '../accounts/port.js'
import type { Account } from '../accounts/records.js'
import type { AccountSession } from '../accounts/service.js'
import { consumeStepUp } from '../accounts/step-up.js'
import type { OAuthGrants } from '../authorization-server/port.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { LocalRequestInfo } from '../local-accounts/sign-in.js'
import { requireStoreId } from '../local-accounts/store-input.js'
import { SecurityLogEntries, type SecurityLogEntryOptions } from '../security-log/entries.js'
import type { SecurityLogEntry } from '../security-log/entry.js'
import type { SecurityLog } from '../security-log/port.js'
import type { SecurityLogWriter } from '../security-log/writer.js'
import type { StepUpService } from '../step-up/service.js'
import { ADMINISTRATION_STEP_UP_PURPOSE } from './administrators.js'
import {
  AdministrationAudit,
  type AdministrationAuditFacts,
  ADMINISTRATION_EVENT_TYPES as EVENTS,
  requireAdministrationReason,
} from './audit.js'
import { AdministrationError, AdministrationErrorCodes as CODES } from './errors.js'
import { type AdministeredAccount, type AdministeredApiKeys, administeredAccount } from './view.js'

/** Sends the password-reset mail of an address (`AccountEmail`, whose `requestPasswordReset` this is). */
export interface PasswordResetMailer {
  requestPasswordReset(body: { readonly email: string }, info?: LocalRequestInfo): Promise<unknown>
}

export interface AccountAdministrationOptions {
  /** The accounts; also their directory (search) unless `directory` is given. */
  readonly accounts: AccountStore & Partial<AccountDirectory>
  readonly directory?: AccountDirectory
  /** The local sign-ins of the same accounts: sessions, epochs, the security events. */
  readonly local: LocalAccounts
  /** Consumes the administrator's step-up credentials (purpose `administration`). */
  readonly stepUp: StepUpService
  /** Where the audit entries go and the recent events come from. */
  readonly log: SecurityLog
  /** How the audit entries record addresses and devices (as the log's writer does). */
  readonly logEntries?: SecurityLogEntryOptions
  /** When the log refuses a write, the audit entry is queued here (retried, never dropped silently). */
  readonly writer?: SecurityLogWriter
  readonly apiKeys?: AdministeredApiKeys
  readonly grants?: OAuthGrants
  /** The account email flows: "require a password reset" sends their reset mail. */
  readonly passwordReset?: PasswordResetMailer
  /** `TotpFactor` (its `isEnabled`), for the view's factors. */
  readonly totp?: { isEnabled(accountId: string): Promise<boolean> }
  /** Stages the revocation of provider tokens before a deletion (`OAuthLifecycleService`). */
  readonly providerTokens?: ProviderTokenRevocations
  /** Entries of the security log in a view, 1-200. Default 20. */
  readonly recentEvents?: number
}

const OPTIONS: OptionsShape<AccountAdministrationOptions> = {
  accounts: { required: true, kind: 'object', code: 'administration.options' },
  directory: { kind: 'object', code: 'administration.options' },
  local: { required: true, kind: 'object', code: 'administration.options' },
  stepUp: { required: true, kind: 'object', code: 'administration.options' },
  log: { required: true, kind: 'object', code: 'administration.options' },
  logEntries: { kind: 'object', code: 'administration.options' },
  writer: { kind: 'object', code: 'administration.options' },
  apiKeys: { kind: 'object', code: 'administration.options' },
  grants: { kind: 'object', code: 'administration.options' },
  passwordReset: { kind: 'object', code: 'administration.options' },
  totp: { kind: 'object', code: 'administration.options' },
  providerTokens: { kind: 'object', code: 'administration.options' },
  recentEvents: { kind: 'number', code: 'administration.options' },
}

/** Who acts, on which account, why, with which one-use credential: what every change takes. */
export interface AdministrativeChange {
  /** The administrator's verified session (a step-up credential is bound to it). */
  readonly administrator: AccountSession
  /** A one-use credential of purpose `administration`, issued to this session and epoch. */
  readonly stepUpToken: string
  readonly accountId: string
  /** Why: 1-200 characters, kept in the audit entry. */
  readonly reason: unknown
  /** The administrator's request: its address and device go into the audit entry. */
  readonly request?: LocalRequestInfo
}

/** What a change answers: the account after it (null once deleted) and its audit entry's id. */
export interface AdministrativeOutcome {
  readonly account: Account | null
  readonly auditId: string
}

/**
 * Account administration, framework-neutral (the administration routes call it; route policy decides
 * who may, see `administratorGuard`): search and view accounts, disable and enable, sign out every
 * session, revoke one API key or grant, require a password reset, delete. Every change consumes a fresh
 * one-use step-up credential of the administrator (`administration`) before it changes anything, and
 * writes an audit entry (administrator, target, reason) to the security log before it answers.
 */
export class AccountAdministration {
  readonly #options: AccountAdministrationOptions
  readonly #directory: AccountDirectory | undefined
  readonly #audit: AdministrationAudit

  constructor(options: AccountAdministrationOptions) {
    readOptions(options, 'AccountAdministration', OPTIONS)
    const recent = options.recentEvents ?? 20
    if (!Number.isSafeInteger(recent) || recent < 1 || recent > 200) {
      throw new AdministrationError(CODES.invalidInput, 'recentEvents must be an integer 1-200')
    }
    this.#options = { ...options, recentEvents: recent }
    const search = options.directory ?? options.accounts
    this.#directory = typeof search.searchAccounts === 'function' ? (search as AccountDirectory) : undefined
    this.#audit = new AdministrationAudit(
      options.log,
      new SecurityLogEntries(options.logEntries),
      options.writer,
    )
  }

  /** Accounts by id, username, email or prefix (one indexed query, see `AccountDirectory`). */
  async search(query: AccountSearchQuery): Promise<readonly AccountSearchHit[]> {
    if (this.#directory === undefined) throw notConfigured('an account directory')
    return this.#directory.searchAccounts(query)
  }

  /** One account with its methods, factors, sessions, API keys, grants and recent events; null when unknown. */
  async view(accountId: string): Promise<AdministeredAccount | null> {
    const o = this.#options
    return administeredAccount(
      {
        accounts: o.accounts,
        local: o.local,
        log: o.log,
        apiKeys: o.apiKeys,
        grants: o.grants,
        totp: o.totp,
        recentEvents: o.recentEvents ?? 20,
      },
      targetId(accountId),
    )
  }

  /** Disables the account: the epoch moves (every instance refuses its credentials), sign-in is refused. */
  disable(change: AdministrativeChange): Promise<AdministrativeOutcome> {
    return this.#setStatus(change, 'disabled')
  }

  enable(change: AdministrativeChange): Promise<AdministrativeOutcome> {
    return this.#setStatus(change, 'active')
  }

  /** Ends every session, token family and access token of the account (the epoch moves). */
  async signOutEverywhere(change: AdministrativeChange): Promise<AdministrativeOutcome> {
    const { accountId, facts } = await this.#authorize(change, { notSelf: true })
    const { entry } = await this.#audit.audited(EVENTS.signedOut, facts, this.#options.accounts, (log) =>
      this.#endEverything(accountId, facts, log),
    )
    return this.#done(entry, accountId)
  }

  /** Revokes one API key of the account; a key of another owner is `administration.not_found`. */
  async revokeApiKey(
    change: AdministrativeChange & { readonly keyId: string },
  ): Promise<AdministrativeOutcome> {
    const keys = this.#options.apiKeys
    if (keys === undefined) throw notConfigured('apiKeys')
    const keyId = requireId(change.keyId, 'keyId')
    const { accountId, facts } = await this.#authorize(change, {
      check: async (target) => {
        const record = await keys.store.get(keyId)
        if (record === undefined || record.ownerKind !== 'user' || record.ownerId !== target) throw notFound()
      },
    })
    const { entry } = await this.#audit.audited(
      EVENTS.apiKeyRevoked,
      { ...facts, keyId },
      keys.store,
      (securityLog) => keys.store.revoke(keyId, new Date(), securityLog === undefined ? {} : { securityLog }),
    )
    return this.#done(entry, accountId)
  }

  /** Revokes one grant of the account (an app it connected); a grant of another account is `not_found`. */
  async revokeGrant(
    change: AdministrativeChange & { readonly grantId: string },
  ): Promise<AdministrativeOutcome> {
    const grants = this.#options.grants
    if (grants === undefined) throw notConfigured('grants')
    const grantId = requireId(change.grantId, 'grantId')
    const { accountId, facts } = await this.#authorize(change, {
      check: async (target) => {
        const status = await grants.status(grantId)
        if (status === undefined || status.accountId !== target) throw notFound()
      },
    })
    const { entry } = await this.#audit.audited(
      EVENTS.grantRevoked,
      { ...facts, grantId },
      grants,
      async (securityLog) => {
        const ended = await grants.disconnect(
          accountId,
          grantId,
          securityLog === undefined ? {} : { securityLog },
        )
        if (!ended) throw notFound()
      },
    )
    return this.#done(entry, accountId)
  }

  /**
   * Signs the account out everywhere and sends the password-reset mail to its verified primary address
   * (through the account email flows and their outbox): the person sets a new password from the mail.
   */
  async requirePasswordReset(change: AdministrativeChange): Promise<AdministrativeOutcome> {
    const reset = this.#options.passwordReset
    if (reset === undefined) throw notConfigured('passwordReset')
    const accounts = this.#options.accounts
    let address: string | undefined
    const { accountId, facts } = await this.#authorize(change, {
      check: async (target) => {
        const [methods, emails] = await Promise.all([
          accounts.listSignInMethods(target),
          accounts.listEmailAddresses(target),
        ])
        if (!methods.some((method) => method.kind === 'password')) {
          throw new AdministrationError(CODES.noPassword, 'the account has no password')
        }
        const verified = emails.filter((email) => email.verified)
        address = (verified.find((email) => email.primary) ?? verified[0])?.address
        if (address === undefined) throw new AdministrationError(CODES.noAddress, 'no verified address')
      },
    })
    const { entry } = await this.#audit.audited(
      EVENTS.passwordResetRequired,
      facts,
      this.#options.accounts,
      (log) => this.#endEverything(accountId, facts, log),
    )
    await reset.requestPasswordReset({ email: address as string }, change.request ?? {})
    return this.#done(entry, accountId)
  }

  /** Deletes the account and everything of it (provider tokens staged for revocation first). */
  async deleteAccount(change: AdministrativeChange): Promise<AdministrativeOutcome> {
    const { accountId, facts } = await this.#authorize(change, { notSelf: true })
    const { result: staged, entry } = await this.#audit.audited(
      EVENTS.deleted,
      facts,
      this.#options.accounts,
      (securityLog) =>
        deleteWithStagedRevocations(
          this.#options.accounts,
          this.#options.providerTokens,
          accountId,
          securityLog === undefined ? {} : { securityLog },
        ),
    )
    this.#options.local.accountDeleted(accountId)
    this.#options.local.emit('account.deleted', {
      accountId,
      stagedRevocations: staged,
      ...(facts.clientAddress === undefined ? {} : { clientAddress: facts.clientAddress }),
    })
    return Object.freeze({ account: null, auditId: entry.id })
  }

  async #setStatus(change: AdministrativeChange, status: Account['status']): Promise<AdministrativeOutcome> {
    const { accountId, facts, before } = await this.#authorize(change, { notSelf: status === 'disabled' })
    const { accounts, local } = this.#options
    const type = status === 'disabled' ? EVENTS.disabled : EVENTS.enabled
    const { result: account, entry } = await this.#audit.audited(type, facts, accounts, async (log) => {
      const changed = await accounts.setAccountStatus({
        accountId,
        status,
        now: new Date(),
        ...(log === undefined ? {} : { securityLog: log }),
      })
      if (changed === null) throw notFound()
      return changed
    })
    if (account.status !== before.status) local.emit('account.status_changed', { accountId, status })
    if (account.securityEpoch !== before.securityEpoch) {
      await local.epochMoved({
        accountId,
        securityEpoch: account.securityEpoch,
        reason: 'account_disabled',
        clientAddress: facts.clientAddress,
      })
    }
    return this.#done(entry, accountId)
  }

  /** Moves the epoch (with the audit entry where the store takes it), then ends every session here. */
  async #endEverything(
    accountId: string,
    facts: AdministrationAuditFacts,
    securityLog: readonly SecurityLogEntry[] | undefined,
  ): Promise<number> {
    const epoch = await this.#options.accounts.bumpSecurityEpoch({
      accountId,
      now: new Date(),
      ...(securityLog === undefined ? {} : { securityLog }),
    })
    if (epoch === null) throw notFound()
    await this.#options.local.epochMoved({
      accountId,
      securityEpoch: epoch,
      reason: 'admin',
      clientAddress: facts.clientAddress,
    })
    return epoch
  }

  /**
   * The checks before any change, in an order that spends the step-up credential only on a request that
   * can succeed: the reason and ids, the target exists (and is not the administrator, where refused),
   * the operation's own check; then the credential is consumed (bound to the administrator's session).
   */
  async #authorize(
    change: AdministrativeChange,
    rules: { readonly notSelf?: boolean; readonly check?: (accountId: string) => Promise<void> },
  ): Promise<{ accountId: string; facts: AdministrationAuditFacts; before: Account }> {
    const accountId = targetId(change.accountId)
    const reason = requireAdministrationReason(change.reason)
    const administrator = change.administrator
    if (rules.notSelf === true && administrator.accountId === accountId) {
      throw new AdministrationError(CODES.selfTarget, 'administrators cannot do this to their own account')
    }
    const before = await unavailableOnFailure(() => this.#options.accounts.getAccount(accountId))
    if (before === null) throw notFound()
    await rules.check?.(accountId)
    await consumeStepUp(
      this.#options.stepUp,
      administrator,
      change.stepUpToken,
      ADMINISTRATION_STEP_UP_PURPOSE,
    )
    this.#options.local.emit('step_up.consumed', {
      accountId: administrator.accountId,
      purpose: ADMINISTRATION_STEP_UP_PURPOSE,
      sessionHandle: administrator.sessionHandle,
    })
    const clientAddress = this.#options.local.clientAddress(change.request)
    const userAgent = change.request?.userAgent
    const facts: AdministrationAuditFacts = {
      administratorId: administrator.accountId,
      administratorSession: administrator.sessionHandle,
      accountId,
      reason,
      ...(clientAddress === undefined ? {} : { clientAddress }),
      ...(userAgent === undefined ? {} : { userAgent }),
    }
    return { accountId, facts, before }
  }

  async #done(entry: SecurityLogEntry, accountId: string): Promise<AdministrativeOutcome> {
    const account = await this.#options.accounts.getAccount(accountId)
    return Object.freeze({ account, auditId: entry.id })
  }
}

function targetId(accountId: unknown): string {
  return requireId(accountId, 'accountId')
}

function requireId(value: unknown, name: string): string {
  try {
    return requireStoreId(value, name)
  } catch {
    throw new AdministrationError(CODES.invalidInput, `${name} is malformed`)
  }
}

function notFound(): AdministrationError {
  return new AdministrationError(CODES.notFound, 'no such account, key or grant')
}

function notConfigured(what: string): AdministrationError {
  return new AdministrationError(CODES.notConfigured, `administration has no ${what} configured`)
}

async function unavailableOnFailure<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (isPortcullisError(error)) throw error
    throw new AdministrationError(CODES.unavailable, 'the account store is unavailable', { cause: error })
  }
}
