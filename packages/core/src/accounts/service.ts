import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { LocalAuthError } from '../local-accounts/auth-errors.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { LocalCredentials } from '../local-accounts/local-credentials.js'
import { validatePassword } from '../local-accounts/passwords/password.js'
import { normalizeUsername } from '../local-accounts/passwords/username.js'
import type { LocalRequestInfo, SessionSignIn, TokenSignIn } from '../local-accounts/sign-in.js'
import type { StepUpCredential } from '../step-up/credential.js'
import { requirePurpose } from '../step-up/input.js'
import type { StepUpService } from '../step-up/service.js'
import { deleteWithStagedRevocations, type ProviderTokenRevocations } from './deletion.js'
import { AccountError, AccountErrorCodes } from './errors.js'
import type { AccountStore } from './port.js'
import type { Account, PasswordSignInMethod, SignInMethod } from './records.js'
import { consumeStepUp } from './step-up.js'

/** The signed-in caller of an account operation, from the request's verified authentication. */
export interface AccountSession {
  readonly accountId: string
  /** The epoch the verified session or token carries; a step-up credential is bound to it. */
  readonly securityEpoch: number
  /** The session handle or token family the request came with; a step-up credential is bound to it. */
  readonly sessionHandle: string
}

/** Step-up purposes the account operations consume (one-use credentials, see `passwordStepUp`). */
export const ACCOUNT_STEP_UP_PURPOSES = Object.freeze({
  addPassword: 'password-add',
  removePassword: 'password-remove',
  deleteAccount: 'delete-account',
} as const)

export interface AccountServiceOptions {
  readonly accounts: AccountStore
  /** The local sign-ins of the same accounts (`LocalAccounts({ accounts })`): passwords, sessions, tokens. */
  readonly local: LocalAccounts
  readonly stepUp: StepUpService
  /**
   * Stages the revocation of an account's retained provider tokens before it is deleted; pass the
   * `OAuthLifecycleService`. Without it, deleting an account that retains provider tokens is refused.
   */
  readonly providerTokens?: ProviderTokenRevocations
}

const OPTIONS: OptionsShape<AccountServiceOptions> = {
  accounts: { required: true, kind: 'object', code: 'account.service_options' },
  local: { required: true, kind: 'object', code: 'account.service_options' },
  stepUp: { required: true, kind: 'object', code: 'account.service_options' },
  providerTokens: { kind: 'object', code: 'account.service_options' },
}

/** An account with every way to sign in to it. */
export interface AccountOverview {
  readonly account: Account
  readonly methods: readonly SignInMethod[]
}

/** What an operation that moved the caller's security epoch hands back: the caller's fresh sign-in. */
export interface RenewedSignIn {
  readonly securityEpoch: number
  readonly session?: SessionSignIn
  readonly tokens?: TokenSignIn
}

/**
 * Account operations over the one account model, framework-neutral (HTTP adapters call these): the
 * overview of an account and its sign-in methods, a password step-up (a one-use credential for any
 * purpose, earned by re-entering the password), adding and removing the password method, and deleting
 * the account. Sensitive operations consume a step-up credential of their purpose
 * (`ACCOUNT_STEP_UP_PURPOSES`) bound to the caller's session and epoch, before they change anything.
 */
export class AccountService {
  readonly #accounts: AccountStore
  readonly #local: LocalAccounts
  readonly #stepUp: StepUpService
  readonly #providerTokens: ProviderTokenRevocations | undefined

  constructor(options: AccountServiceOptions) {
    readOptions(options, 'AccountService', OPTIONS)
    const tokens = options.providerTokens
    if (tokens !== undefined && typeof tokens.stageAccountRevocations !== 'function') {
      throw new ConfigurationError(
        'account.service_options',
        'providerTokens must have stageAccountRevocations (an OAuthLifecycleService)',
      )
    }
    this.#accounts = options.accounts
    this.#local = options.local
    this.#stepUp = options.stepUp
    this.#providerTokens = tokens
  }

  /** The account and its sign-in methods; null when it does not exist. */
  async overview(accountId: string): Promise<AccountOverview | null> {
    const [account, methods] = await Promise.all([
      this.#accounts.getAccount(accountId),
      this.#accounts.listSignInMethods(accountId),
    ])
    return account === null ? null : Object.freeze({ account, methods })
  }

  /**
   * Re-checks the caller's password (under the sign-in rate limits, before any hashing) and issues a
   * one-use step-up credential for `purpose`, bound to the caller's session and security epoch. Throws
   * `local.invalid_credentials`, `local.rate_limited`, `account.password_missing` (an account that signs
   * in with provider identities only: reauthenticate there instead) or `step-up.invalid_input`.
   */
  async passwordStepUp(request: {
    readonly session: AccountSession
    readonly purpose: string
    readonly password: unknown
    readonly request?: LocalRequestInfo
  }): Promise<StepUpCredential> {
    const { session } = request
    // A malformed purpose is refused before the attempt counts against the sign-in limits.
    const purpose = requirePurpose(request.purpose)
    await this.#local.confirmPassword({
      accountId: session.accountId,
      password: request.password,
      ...(request.request === undefined ? {} : { request: request.request }),
    })
    const credential = await this.#stepUp.issue({
      accountId: session.accountId,
      purpose,
      securityEpoch: session.securityEpoch,
      sessionBinding: session.sessionHandle,
    })
    this.#local.emit('step_up.issued', {
      accountId: session.accountId,
      purpose,
      sessionHandle: session.sessionHandle,
    })
    return credential
  }

  /**
   * Adds a password (and its username) to an account that signs in with provider identities only.
   * Consumes a `password-add` step-up credential (after the new password passed the screen, so a refused
   * password does not spend it). Throws `local.invalid_username`, `local.invalid_password`,
   * `local.password_screened`, `local.username_taken`, `account.password_exists`, `step-up.required`.
   */
  async addPassword(request: {
    readonly session: AccountSession
    readonly stepUpToken: string
    readonly username: unknown
    readonly password: unknown
    readonly request?: LocalRequestInfo
  }): Promise<PasswordSignInMethod> {
    const { session } = request
    const username = normalizeUsername(request.username)
    const password = validatePassword(request.password, this.#local.passwordRules)
    const existing = await this.#accounts.findPassword({ accountId: session.accountId })
    if (existing !== null)
      throw new AccountError(AccountErrorCodes.passwordExists, 'the account has a password')
    await this.#local.screenPassword(password, { purpose: 'add', username })
    await this.#consume(session, request.stepUpToken, ACCOUNT_STEP_UP_PURPOSES.addPassword)
    const passwordHash = await this.#local.hasher.hash(password)
    const outcome = await this.#accounts.addPassword({
      accountId: session.accountId,
      username,
      passwordHash,
      now: new Date(),
    })
    switch (outcome.outcome) {
      case 'username-taken':
        throw new LocalAuthError('local.username_taken', 'the username is taken')
      case 'password-exists':
        throw new AccountError(AccountErrorCodes.passwordExists, 'the account has a password')
      case 'not-found':
        throw new AccountError(AccountErrorCodes.notFound, 'the account does not exist')
      case 'added': {
        const clientAddress = this.#local.clientAddress(request.request)
        this.#local.emit('account.password_added', {
          accountId: session.accountId,
          ...(clientAddress === undefined ? {} : { clientAddress }),
        })
        const { account } = outcome
        return Object.freeze({
          kind: 'password',
          accountId: account.accountId,
          username: account.username,
          createdAt: account.updatedAt,
          passwordChangedAt: account.passwordChangedAt,
        })
      }
    }
  }

  /**
   * Removes the password method, unless it is the account's last way to sign in (`account.final_method`,
   * 409). Consumes a `password-remove` step-up credential. The security epoch moves: every other session
   * and token family ends; the caller gets a fresh session or token pair.
   */
  async removePassword(request: {
    readonly session: AccountSession
    readonly stepUpToken: string
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
  }): Promise<RenewedSignIn> {
    const { session } = request
    const methods = await this.#accounts.listSignInMethods(session.accountId)
    if (!methods.some((method) => method.kind === 'password')) {
      throw new AccountError(AccountErrorCodes.passwordMissing, 'the account has no password')
    }
    // Refused before the credential is spent; the store counts again under the account's lock.
    if (methods.length <= 1) throw finalMethod()
    await this.#consume(session, request.stepUpToken, ACCOUNT_STEP_UP_PURPOSES.removePassword)
    const outcome = await this.#accounts.removePassword({ accountId: session.accountId, now: new Date() })
    if (outcome.outcome === 'final-method') throw finalMethod()
    if (outcome.outcome === 'not-found') {
      throw new AccountError(AccountErrorCodes.passwordMissing, 'the account has no password')
    }
    const clientAddress = this.#local.clientAddress(request.request)
    this.#local.emit('account.password_removed', {
      accountId: session.accountId,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    await this.#local.epochMoved({
      accountId: session.accountId,
      securityEpoch: outcome.securityEpoch,
      reason: 'password_removed',
      clientAddress,
    })
    const renewed = await this.#local.renewSignIn({
      accountId: session.accountId,
      securityEpoch: outcome.securityEpoch,
      credentials: request.credentials,
      ...(request.request === undefined ? {} : { request: request.request }),
    })
    return Object.freeze({ securityEpoch: outcome.securityEpoch, ...renewed })
  }

  /**
   * Deletes the caller's account. Consumes a `delete-account` step-up credential, stages the revocation
   * of every retained provider token through the retry queue (`providerTokens`), then removes in one
   * store transaction the account, its sign-in methods, sessions, refresh-token families, step-up
   * credentials, API keys it owns and its token vault rows. Its credentials are refused at once on this
   * instance, and on the others once their caches expire (`revocation.maxStalenessSeconds`).
   */
  async deleteAccount(request: {
    readonly session: AccountSession
    readonly stepUpToken: string
    readonly request?: LocalRequestInfo
  }): Promise<{ readonly stagedRevocations: number }> {
    const { session } = request
    await this.#consume(session, request.stepUpToken, ACCOUNT_STEP_UP_PURPOSES.deleteAccount)
    const stagedRevocations = await deleteWithStagedRevocations(
      this.#accounts,
      this.#providerTokens,
      session.accountId,
    )
    this.#local.accountDeleted(session.accountId)
    const clientAddress = this.#local.clientAddress(request.request)
    this.#local.emit('account.deleted', {
      accountId: session.accountId,
      stagedRevocations,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    return Object.freeze({ stagedRevocations })
  }

  /**
   * Disables an account (its sessions and tokens end at once on this instance: the epoch moves, and no
   * way of signing in works until it is enabled) or enables it again. For administrators; null for an
   * unknown account.
   */
  async setStatus(request: {
    readonly accountId: string
    readonly status: Account['status']
  }): Promise<Account | null> {
    const before = await this.#accounts.getAccount(request.accountId)
    const account = await this.#accounts.setAccountStatus({ ...request, now: new Date() })
    if (account === null || before === null) return account
    if (account.status !== before.status) {
      this.#local.emit('account.status_changed', { accountId: account.accountId, status: account.status })
    }
    if (account.securityEpoch !== before.securityEpoch) {
      await this.#local.epochMoved({
        accountId: account.accountId,
        securityEpoch: account.securityEpoch,
        reason: 'account_disabled',
      })
    }
    return account
  }

  async #consume(session: AccountSession, token: string, purpose: string): Promise<void> {
    await consumeStepUp(this.#stepUp, session, token, purpose)
    this.#local.emit('step_up.consumed', {
      accountId: session.accountId,
      purpose,
      sessionHandle: session.sessionHandle,
    })
  }
}

function finalMethod(): AccountError {
  return new AccountError(AccountErrorCodes.finalMethod, 'the last way to sign in cannot be removed')
}
