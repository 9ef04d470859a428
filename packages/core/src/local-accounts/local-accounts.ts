import type { AccountStore } from '../accounts/port.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import type { AuthenticationEvidence, Impersonator } from '../authentication/principal.js'
import { readOptions } from '../errors/options.js'
import type { StepUpService } from '../step-up/service.js'
import type { AccountEpochs } from './account-epochs.js'
import { invalidLocalInput } from './errors.js'
import type {
  LocalAccountsOptions,
  LocalAuthProfile,
  LocalTransport,
  RegistrationPolicy,
} from './local-accounts-options.js'
import { LOCAL_ACCOUNTS_OPTIONS } from './local-accounts-shape.js'
import { type LocalCredentials, type LocalSessionView, localCredentialsOf } from './local-credentials.js'
import { localParts, localServices } from './local-parts.js'
import { LocalStepUp } from './local-step-up.js'
import { checkedHandleTags, openAccountSession } from './open-session.js'
import { PasswordActions } from './password-actions.js'
import type { BoundedPasswordHasher } from './passwords/bounded-password-hasher.js'
import type { PasswordRules } from './passwords/password.js'
import type { PasswordScreen, PasswordScreenContext } from './passwords/password-screen.js'
import type { ProviderSessionMatch } from './provider-session.js'
import { resolveClientAddress, type TrustedProxies } from './rate-limits/client-address.js'
import { subscribeLocalCaches } from './revocation-subscriber.js'
import type { LocalRuntime } from './runtime.js'
import type { PendingSecondFactor } from './second-factor.js'
import type { EpochBumpReason, SecurityEventFields, SecurityEventType } from './security-events.js'
import type { SessionOperations } from './session-operations.js'
import type { LocalCsrf } from './sessions/local-csrf.js'
import type { SessionCookie } from './sessions/session-cookie.js'
import type {
  EstablishSignInRequest,
  LocalRequestInfo,
  LocalSignIn,
  SessionSignIn,
  SignInOptions,
  TokenSignIn,
} from './sign-in.js'
import { transportsOf } from './sign-in-rules.js'
import type { SignIns } from './sign-ins.js'
import type { LocalJWKSDocument } from './tokens/signing-key-ring.js'

/**
 * Local accounts (username and password) as Portcullis mechanisms: the profile the application picked
 * (`session`, `tokens` or `hybrid`) decides which mechanisms exist (`mechanisms`, register them with the
 * policy); the operations here (sign-in, sign-out, refresh, password change, ...) are what the HTTP
 * adapter's routes call. Framework-neutral: request bodies arrive parsed, responses are plain objects.
 */
export class LocalAccounts {
  readonly profile: LocalAuthProfile
  readonly registration: RegistrationPolicy
  /** The mechanisms of the profile: `[session]`, `[bearer]` or `[session, bearer]`. */
  readonly mechanisms: readonly AuthenticationMechanism[]
  readonly sessionMechanismName: string | undefined
  readonly bearerMechanismName: string | undefined
  /** The session cookie (session and hybrid profiles). */
  readonly sessionCookie: SessionCookie | undefined
  /** CSRF checks, synchronizer tokens and the pre-session seed cookie. */
  readonly csrf: LocalCsrf
  readonly hasher: BoundedPasswordHasher
  /** The rules a new password must meet (registration, change, reset, adding a password). */
  readonly passwordRules: PasswordRules
  /** The screen every new password passes after the rules (default the offline blocklist). */
  readonly passwordScreen: PasswordScreen
  readonly #accounts: AccountStore
  readonly #operations: SessionOperations
  readonly #runtime: LocalRuntime
  readonly #passwords: PasswordActions
  readonly #proxies: TrustedProxies
  readonly #epochs: AccountEpochs
  readonly #signIns: SignIns

  constructor(options: LocalAccountsOptions) {
    readOptions(options, 'LocalAccounts', LOCAL_ACCOUNTS_OPTIONS)
    const parts = localParts(options)
    this.profile = options.profile
    this.registration = parts.runtime.settings.registration
    this.#accounts = options.accounts
    this.#proxies = parts.proxies
    this.#runtime = parts.runtime
    this.hasher = parts.hasher
    this.passwordRules = parts.flows.rules
    this.passwordScreen = parts.flows.screen
    this.sessionCookie = parts.sessionCookie
    this.csrf = parts.csrf
    this.sessionMechanismName = parts.sessionMechanismName
    this.bearerMechanismName = parts.bearerMechanismName
    this.mechanisms = parts.mechanisms
    const services = localServices(options, parts, (info) => this.clientAddress(info))
    this.#signIns = services.signIns
    this.#epochs = services.epochs
    this.#operations = services.operations
    this.#passwords = new PasswordActions({
      flows: parts.flows,
      epochs: services.epochs,
      accounts: options.accounts,
      runtime: parts.runtime,
    })
    const notices = options.revocation?.notices
    if (notices !== undefined) {
      subscribeLocalCaches(notices, {
        runtime: parts.runtime,
        sessions: parts.sessions,
        tokens: parts.tokens,
      })
    }
  }

  /** The transports this profile can establish. */
  get transports(): readonly LocalTransport[] {
    return transportsOf(this.profile)
  }

  /** The client address for limits and events: the direct peer, or the rightmost untrusted hop. */
  clientAddress(info: LocalRequestInfo = {}): string | undefined {
    return resolveClientAddress({
      peerAddress: info.peerAddress,
      forwardedFor: info.forwardedFor,
      trustedProxies: this.#proxies,
    })
  }

  /** The public keys of the token profile, for the JWKS route (`Cache-Control` is the adapter's). */
  jwks(): LocalJWKSDocument {
    return this.#operations.jwks()
  }

  /** Creates an account under the registration policy (it does not sign in). */
  async register(
    body: unknown,
    info: LocalRequestInfo = {},
  ): Promise<{ readonly accountId: string; readonly username: string }> {
    return this.#passwords.register(body, this.clientAddress(info))
  }

  /**
   * Signs in with `{ username, password }` and establishes the transport asked for, or, for an account
   * with a second factor, answers a `PendingSecondFactor` (no session, no tokens) for `completeSecondFactor`.
   */
  async login(body: unknown, options: SignInOptions = {}): Promise<LocalSignIn | PendingSecondFactor> {
    return this.#signIns.login(body, options)
  }

  /**
   * The second step of a password sign-in (`{ pendingToken, code }` or `{ pendingToken, recoveryCode }`):
   * establishes the transport the first step asked for. Refused (`local.sign_in_required`) when the
   * account is gone or its security epoch moved since the password was checked.
   */
  async completeSecondFactor(body: unknown, options: SignInOptions = {}): Promise<LocalSignIn> {
    return this.#signIns.completeSecondFactor(body, options)
  }

  /**
   * Establishes a local session or token pair for an account that authenticated some other way (OAuth
   * sign-in calls this): the account must exist; nothing about passwords is checked.
   */
  async establishSignIn(request: EstablishSignInRequest): Promise<LocalSignIn> {
    return this.#signIns.establish(request)
  }

  /**
   * The username of the account's password, or undefined when it has none (a provider-only or passkey-only
   * account) or does not exist: what passkey registration and TOTP enrollment show the user.
   */
  async usernameOf(accountId: string): Promise<string | undefined> {
    if (typeof accountId !== 'string' || accountId === '') {
      throw invalidLocalInput('accountId must be a non-empty string')
    }
    return (await this.#accounts.findPassword({ accountId }))?.username
  }

  /**
   * Ends the local sessions established from an identity-provider session (`establishSignIn` with
   * `providerSession`) that a back-channel logout names: by `sid`, by `sub`, or both. How many ended.
   */
  async revokeProviderSessions(match: ProviderSessionMatch): Promise<number> {
    return this.#operations.revokeProviderSessions(match)
  }

  /**
   * Signs out: the request's own session or token family, or with `{ all: true }` every session and
   * family of the account and every access token (the security epoch moves).
   */
  async logout(request: {
    readonly accountId: string
    readonly body?: unknown
    readonly sessionId?: string | undefined
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
  }): Promise<void> {
    return this.#operations.logout(request)
  }

  /**
   * Opens a session of an active account that no sign-in made (an administrator's impersonation): its
   * handle starts with `handleTags` (1 or 2 tags of 11 base64url characters, see `revokeTaggedSessions`)
   * and it ends at `expiresAt` at the latest. Emits `session.created`, not `login.succeeded`. Throws
   * `local.account_not_found` for an unknown or disabled account.
   */
  async openSession(request: {
    readonly accountId: string
    readonly handleTags: readonly string[]
    readonly expiresAt: Date
    readonly request?: LocalRequestInfo
  }): Promise<SessionSignIn> {
    return openAccountSession({ accounts: this.#accounts, operations: this.#operations }, request)
  }

  /**
   * Ends every session, of any account, whose handle carries all of `tags` in its two tag slots (sessions
   * `openSession` opened with them, or `establishSignIn` from a provider session), on every instance:
   * the store announces each one. How many ended.
   */
  async revokeTaggedSessions(tags: readonly string[]): Promise<number> {
    return this.#operations.revokeTagged(checkedHandleTags(tags))
  }

  /**
   * Moves the security epoch and ends every session and token family of the account; the new epoch.
   * `impersonator`: the impersonation asking for it (its events name the administrator).
   */
  async signOutEverywhere(
    accountId: string,
    reason: EpochBumpReason = 'sign_out_everywhere',
    clientAddress?: string,
    impersonator?: Impersonator,
  ): Promise<number | null> {
    return this.#epochs.signOutEverywhere(accountId, reason, clientAddress, impersonator)
  }

  /** Rotates a refresh token (`{ refresh_token }`) into a new pair. */
  async refresh(body: unknown, info: LocalRequestInfo = {}): Promise<TokenSignIn> {
    return this.#operations.refresh(body, info)
  }

  /** RFC 7009 (`{ token }`): revokes a refresh token's family; unknown tokens are not an error. */
  async revokeToken(body: unknown): Promise<void> {
    return this.#operations.revokeToken(body)
  }

  /** The account's live sessions; `current` marks the one with `currentHandle`. */
  async listSessions(accountId: string, currentHandle?: string): Promise<readonly LocalSessionView[]> {
    return this.#operations.listSessions(accountId, currentHandle)
  }

  /** Ends one of the account's sessions by its handle; false when there is no such session. */
  async revokeSession(accountId: string, handle: string, info: LocalRequestInfo = {}): Promise<boolean> {
    return this.#operations.revokeSession(accountId, handle, info)
  }

  /**
   * Sets (`null`: clears) the active organization of the account's session with this handle. The caller
   * checks the membership first (`setActiveOrganization` of `@portcullis/core/organizations` does); false
   * when the session is gone.
   */
  async setActiveOrganization(
    accountId: string,
    handle: string,
    organizationId: string | null,
  ): Promise<boolean> {
    return this.#operations.setActiveOrganization(accountId, handle, organizationId)
  }

  /**
   * A new session id for the caller's session (call it when the session's privileges change: no
   * fixation). The old id stops working at once on this instance and within the staleness bound elsewhere.
   */
  async rotateSession(sessionId: string, info: LocalRequestInfo = {}): Promise<SessionSignIn> {
    return this.#operations.rotateSession(sessionId, info)
  }

  /**
   * Re-checks the password of a signed-in account before a sensitive action (issue a step-up credential
   * after it): under the same per-account and per-address limits as sign-in, checked before any hashing.
   * Throws `local.rate_limited` (with `retryAfterSeconds`), `local.invalid_credentials`, or
   * `local.sign_in_required` for an account that no longer exists.
   */
  async confirmPassword(request: {
    readonly accountId: string
    readonly password: unknown
    readonly request?: LocalRequestInfo
  }): Promise<void> {
    await this.#passwords.confirm(request.accountId, request.password, this.clientAddress(request.request))
  }

  /**
   * Step-up credentials bound to local sign-ins (epoch and session or token family), with
   * `step_up.issued` / `step_up.consumed` events: pass `.verifier` to `createSecurity({ stepUp })`.
   */
  stepUp(service: StepUpService): LocalStepUp {
    return new LocalStepUp(service, (evidence) => this.credentialsOf(evidence), this.#runtime)
  }

  /** What the local mechanisms proved, read from a request's evidence. */
  credentialsOf(evidence: readonly AuthenticationEvidence[]): LocalCredentials {
    return localCredentialsOf(evidence, this.sessionMechanismName, this.bearerMechanismName)
  }

  /**
   * Changes the signed-in account's password (`{ currentPassword, newPassword }`): the security epoch
   * moves, every session and token family of the account ends, and the caller gets a fresh session (when
   * it came with one) and a fresh token pair (when it came with a local access token).
   */
  async changePassword(request: {
    readonly accountId: string
    readonly body: unknown
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
  }): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }> {
    return this.#passwords.change(request, this.clientAddress(request.request ?? {}))
  }

  /**
   * After the account's security epoch moved by the caller's own hand (a password change or removal, an
   * unlink): a fresh session when the request came with one and a fresh token pair when it came with a
   * local access token, both at `securityEpoch`, so the caller stays signed in while every other session
   * and token family of the account has ended.
   */
  renewSignIn(request: {
    readonly accountId: string
    readonly securityEpoch: number
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
    readonly amr?: readonly string[]
  }): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }> {
    return this.#epochs.renew(request)
  }

  /**
   * Tells this instance that the account's security epoch moved in the store (an unlink, a password
   * removal, disabling): the new epoch is believed at once here, `epoch.bumped` is emitted, and the
   * account's sessions and token families are ended in their stores. Other instances notice within
   * `revocation.maxStalenessSeconds`.
   */
  epochMoved(request: {
    readonly accountId: string
    readonly securityEpoch: number
    readonly reason: EpochBumpReason
    readonly clientAddress?: string | undefined
  }): Promise<void> {
    return this.#epochs.moved(request)
  }

  /**
   * Tells this instance that the account is gone (deleted): its sessions and tokens are refused here at
   * once (the next check reads the store and finds no account).
   */
  accountDeleted(accountId: string): void {
    this.#epochs.deleted(accountId)
  }

  /** Emits a security event to the application's sink (never throws; a failing sink is reported). */
  emit<Type extends SecurityEventType>(type: Type, fields: SecurityEventFields[Type]): void {
    this.#runtime.emit(type, fields)
  }

  /**
   * The administrator's reset hook: sets a new password without the old one, moves the security epoch and
   * ends every session and token family of the account. False for an unknown account.
   */
  async resetPassword(accountId: string, newPassword: string): Promise<boolean> {
    return this.#passwords.resetByAdministrator(accountId, newPassword)
  }

  /**
   * Screens a new password with the configured `passwordScreen`: what every flow that sets a password
   * calls after `validatePassword` and before hashing (sign-up, change and reset do so here; a flow of
   * its own, such as adding a password or a reset by email code, calls this). Throws
   * `local.password_screened` (400) when it is refused, `local.password_screen_unavailable` (503) when
   * the screen cannot decide.
   */
  screenPassword(password: string, context: PasswordScreenContext): Promise<void> {
    return this.#passwords.screen(password, context)
  }

  /** A single-use invite code for `invite-only` registration, shown once (only its digest is stored). */
  issueInvite(
    options: { readonly expiresInSeconds?: number } = {},
  ): Promise<{ readonly code: string; readonly expiresAt: Date }> {
    return this.#passwords.issueInvite(options)
  }
}

/**
 * Establishes a local session or token pair for an account that authenticated some other way: the entry
 * point for OAuth sign-in. The account must exist; `transport` is required in the hybrid profile. The
 * session form replaces `replacesSessionId` (the id the browser came with) in the same transaction.
 */
export function establishLocalSignIn(
  local: LocalAccounts,
  request: EstablishSignInRequest,
): Promise<LocalSignIn> {
  return local.establishSignIn(request)
}
