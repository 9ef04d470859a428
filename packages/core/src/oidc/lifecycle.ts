import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { noticesOf, type SecurityNoticeSource } from '../local-accounts/passwords/security-notices.js'
import { type DrainReport, drainRevocationRetries } from '../oauth/accounts/drain.js'
import type { LinkedProviderAccount, UnlinkOutcome } from '../oauth/accounts/records.js'
import type { RefreshOutcome, RevokeOutcome } from '../oauth/accounts/service.js'
import { OAuthTransactionService } from '../oauth/transactions/service.js'
import type { OAuthTransactionStore } from '../oauth/transactions/store.js'
import { StepUpService } from '../step-up/service.js'
import { stageRevocation } from './account-revocations.js'
import { invalidRequest, logoutTokenRejected, OIDCError, OIDCErrorCodes } from './errors.js'
import { planBegin } from './lifecycle-begin.js'
import { type CallbackContext, completeCallback } from './lifecycle-callback.js'
import {
  type BeginOAuthInput,
  type CompleteOAuthInput,
  type LocalSession,
  OAUTH_STEP_UP_PURPOSES,
  OAuthBeginResult,
  type OAuthCallbackOutcome,
} from './lifecycle-types.js'
import type { VerifiedLogoutToken } from './logout-token.js'
import type { OIDCProvider } from './oidc-provider.js'
import { type OAuthProviderRegistration, type Registration, validateRegistration } from './registration.js'

export interface OAuthLifecycleServiceOptions {
  readonly registrations: readonly OAuthProviderRegistration[]
  readonly transactions: OAuthTransactionService
  /**
   * The store behind `transactions`. When given, a callback that failed because the provider was
   * unreachable *before the code was sent* puts its transaction back, so the same callback can be
   * retried (see `complete`). Without it such a transaction stays burned.
   */
  readonly transactionStore?: OAuthTransactionStore
  readonly stepUp: StepUpService
  /** Tolerance for a reauthentication's `auth_time` (clock differences with the provider), 0..120 s. Default 10. */
  readonly authTimeSkewSeconds?: number
  readonly clock?: () => Date
  /**
   * Writes the security notification of an identity linked (not a relink) or unlinked in the account
   * store's transaction (the application's `SecurityNotifier`; the store needs the outbox:
   * `PostgresAccountStore`, or `MemoryAccountStore({ outbox })`). `writesSecurityNotices` is then true
   * and the HTTP routes mark `oauth.linked` / `oauth.unlinked` `notified: true`, so the notifier's sink
   * does not enqueue them again.
   */
  readonly securityNotices?: SecurityNoticeSource
}

const OPTIONS: OptionsShape<OAuthLifecycleServiceOptions> = {
  registrations: { required: true, kind: 'array' },
  transactions: { required: true, kind: 'object' },
  transactionStore: { kind: 'object' },
  stepUp: { required: true, kind: 'object' },
  authTimeSkewSeconds: { kind: 'number', check: integerBetween(0, 120) },
  clock: { kind: 'function' },
  securityNotices: {
    kind: 'object',
    check: (value) =>
      typeof (value as SecurityNoticeSource).entries === 'function' ? undefined : 'must have entries',
  },
}

/** A step-up protected account operation: the session and the credential for its purpose. */
export interface StepUpAuthorizedInput {
  readonly provider: string
  readonly session: LocalSession
  readonly stepUpToken: string
}

/**
 * The framework-neutral OAuth/OIDC lifecycle: begin and complete for login, link, scope upgrade,
 * revalidate and reauthenticate, plus unlink, provider-token refresh and revocation, RP-initiated logout.
 * A thin HTTP adapter calls `begin` (redirect + binding cookie) and `complete` (callback -> outcome).
 *
 * Retry rule for an unreachable provider during `complete`: the transaction is consumed before the
 * code is exchanged. If the token request provably never left this process (DNS failure, connection
 * refused or unreachable), the code is unspent and the transaction is put back: the error is
 * `oidc.provider.unavailable` with `retryable: true` and the same callback may be submitted again until
 * the transaction expires. If the request may have reached the provider (timeout, reset, 5xx, a JWKS
 * outage after the exchange), the code may be spent and must not be replayed: `retryable: false`, the
 * transaction stays burned and the user starts over.
 */
export class OAuthLifecycleService {
  readonly #registrations: ReadonlyMap<string, Registration>
  readonly #stepUp: StepUpService
  readonly #transactions: OAuthTransactionService
  readonly #context: CallbackContext
  readonly #clock: () => Date
  readonly #notices: SecurityNoticeSource | undefined

  constructor(options: OAuthLifecycleServiceOptions) {
    readOptions(options, 'OAuthLifecycleService', OPTIONS)
    if (!(options.transactions instanceof OAuthTransactionService)) {
      throw new ConfigurationError(
        'oidc.lifecycle.transactions_required',
        'transactions must be an OAuthTransactionService',
      )
    }
    if (!(options.stepUp instanceof StepUpService)) {
      throw new ConfigurationError('oidc.lifecycle.step_up_required', 'stepUp must be a StepUpService')
    }
    const store = options.transactionStore
    if (store !== undefined && (typeof store.create !== 'function' || typeof store.consume !== 'function')) {
      throw new ConfigurationError(
        'oidc.lifecycle.store_invalid',
        'transactionStore must be an OAuthTransactionStore',
      )
    }
    if (options.registrations.length === 0) {
      throw new ConfigurationError(
        'oidc.lifecycle.registrations_required',
        'at least one registration is required',
      )
    }
    this.#clock = options.clock ?? (() => new Date())
    const registrations = new Map<string, Registration>()
    for (const input of options.registrations) {
      const registration = validateRegistration(input, options.stepUp.ttlSeconds, this.#clock)
      if (registrations.has(registration.name)) {
        throw new ConfigurationError(
          'oidc.lifecycle.duplicate_provider',
          `provider ${registration.name} is registered twice`,
        )
      }
      registrations.set(registration.name, registration)
    }
    this.#registrations = registrations
    this.#stepUp = options.stepUp
    this.#transactions = options.transactions
    this.#notices = options.securityNotices
    this.#context = {
      notices: options.securityNotices,
      transactions: options.transactions,
      transactionStore: store,
      stepUp: options.stepUp,
      now: () => this.#now(),
      authTimeSkewSeconds: options.authTimeSkewSeconds ?? 10,
    }
  }

  /** Whether link and unlink write their security notifications in the store's transaction. */
  get writesSecurityNotices(): boolean {
    return this.#notices !== undefined
  }

  /** Registered provider names. */
  get providers(): readonly string[] {
    return [...this.#registrations.keys()]
  }

  /** Whether `purpose` can be reauthenticated for at `provider`. */
  canReauthenticate(provider: string, purpose: string): boolean {
    const registration = this.#registrations.get(provider)
    return registration?.provider.kind === 'oidc' && registration.reauthentication.has(purpose)
  }

  /**
   * Verifies a back-channel logout token of an OIDC provider registration (see `OIDCProvider.verifyLogoutToken`);
   * `oidc.provider.unknown` for an unknown name, `oidc.logout_token.rejected` for a plain OAuth provider.
   */
  verifyLogoutToken(
    provider: string,
    token: unknown,
    options: { readonly maxAgeSeconds: number },
  ): Promise<VerifiedLogoutToken> {
    const registration = this.#registration(provider)
    const oidc = registration.provider as Partial<Pick<OIDCProvider, 'verifyLogoutToken'>>
    if (registration.provider.kind !== 'oidc' || typeof oidc.verifyLogoutToken !== 'function') {
      return Promise.reject(logoutTokenRejected('not-oidc'))
    }
    return oidc.verifyLogoutToken(token, { now: this.#now(), maxAgeSeconds: options.maxAgeSeconds })
  }

  /** Starts a round trip: stores the transaction and returns the provider URL and the binding cookie value. */
  async begin(input: BeginOAuthInput): Promise<OAuthBeginResult> {
    const registration = this.#registration(input?.provider)
    const provider = registration.provider
    const { scopes, extra, authorization, stepUpPurpose } = await planBegin(
      registration,
      input,
      (accountId) => this.#link(registration, accountId),
    )
    const start = await this.#transactions.start({
      provider: registration.name,
      operation: input.operation,
      redirectUri: registration.redirectUri,
      ...(input.returnTo === undefined ? {} : { returnTo: input.returnTo }),
      scopes,
      includeNonce: provider.usesNonce,
      browserBinding: input.browserBinding,
      expectedIssuer: provider.issuer,
      ...extra,
    })
    const redirectUrl = await provider.authorizationUrl({
      redirectUri: registration.redirectUri,
      state: start.state,
      nonce: start.nonce,
      codeChallenge: start.pkceChallenge,
      scopes: start.transaction.requestedScopes,
      ...authorization,
    })
    // Spent last, so a refused return target or a PAR failure does not waste the credential; a refused
    // credential leaves only an unusable transaction (nobody learns its state) that expires.
    if (stepUpPurpose !== undefined && (input.operation === 'link' || input.operation === 'scope-upgrade')) {
      await this.#consumeStepUp(input, stepUpPurpose)
    }
    return new OAuthBeginResult({
      operation: input.operation,
      provider: registration.name,
      redirectUrl,
      browserBinding: start.browserBinding,
      setBindingCookie: !start.bindingReused,
      expiresAt: start.transaction.expiresAt,
    })
  }

  /**
   * Completes a callback and applies its operation. Failures are typed: `OAuthTransactionInvalidError`
   * (unknown, replayed, expired, foreign binding or session: 401), `oidc.callback.rejected` (401),
   * `oidc.confirmation.refused` (403), account errors (unknown identity 403, link conflict 409),
   * `oidc.provider.unavailable` (503, see the retry rule above).
   */
  complete(input: CompleteOAuthInput): Promise<OAuthCallbackOutcome> {
    const registration = this.#registration(input?.provider)
    return completeCallback(this.#context, registration, input)
  }

  /**
   * Removes the account's link (and its retained tokens) and moves the account's security epoch (the
   * outcome carries the new one); `final-method` when it is the last way to sign in.
   */
  async unlink(
    input: StepUpAuthorizedInput & { readonly providerAccountId: string },
  ): Promise<UnlinkOutcome> {
    const registration = this.#registration(input?.provider)
    const link = await registration.accounts.resolveLink({
      accountId: input.session.accountId,
      provider: registration.name,
    })
    if (link === null || link.providerAccountId !== input.providerAccountId) return { status: 'not-found' }
    const account = await registration.accounts.getAccount(input.session.accountId)
    // Refused before the credential is spent; the store checks again atomically.
    if (account !== null && account.loginMethods <= 1) return { status: 'final-method' }
    await this.#consumeStepUp(input, OAUTH_STEP_UP_PURPOSES.unlink)
    const { accountId } = input.session
    const change = { type: 'identity-unlinked', provider: registration.name } as const
    return registration.accounts.unlink({
      accountId,
      provider: registration.name,
      providerAccountId: link.providerAccountId,
      ...(await noticesOf(this.#notices, accountId, change)),
    })
  }

  /** Revokes the retained provider tokens at the provider; failures are staged for `drainRevocationRetries`. */
  async revokeProviderTokens(input: StepUpAuthorizedInput): Promise<RevokeOutcome> {
    const registration = this.#registration(input?.provider)
    if (!registration.provider.supportsRevocation) throw invalidRequest('revocation-unsupported')
    const link = await this.#link(registration, input.session.accountId)
    await this.#consumeStepUp(input, OAUTH_STEP_UP_PURPOSES.tokenManagement)
    return registration.tokens.revoke(link.providerAccountId)
  }

  /**
   * Moves the account's retained tokens at every provider into the revocation retry queue (or discards
   * them where the provider cannot revoke), so nothing stays valid at a provider once the account is
   * deleted; `drainRevocationRetries` revokes them. How many were staged. `AccountService` calls this
   * before deleting an account.
   */
  async stageAccountRevocations(accountId: string): Promise<number> {
    const now = this.#now()
    let staged = 0
    for (const registration of this.#registrations.values()) {
      staged += await stageRevocation(registration, accountId, now)
    }
    return staged
  }

  /** Refreshes retained tokens through the vault's compare-and-swap (single flight per process). */
  async refreshProviderTokens(input: {
    readonly provider: string
    readonly accountId: string
  }): Promise<RefreshOutcome> {
    const registration = this.#registration(input?.provider)
    const link = await this.#link(registration, input.accountId)
    return registration.tokens.refresh(link.providerAccountId)
  }

  /** Works off staged revocation retries of one provider (run from a timer or job). */
  drainRevocationRetries(
    provider: string,
    options: { readonly limit?: number; readonly leaseSeconds?: number } = {},
  ): Promise<DrainReport> {
    const registration = this.#registration(provider)
    return drainRevocationRetries({
      store: registration.accounts,
      tokenEndpoint: registration.provider.tokenEndpoint,
      clock: this.#clock,
      ...options,
    })
  }

  /**
   * The provider's RP-initiated logout URL for after the application ended its own session, or null when
   * the provider has no end-session endpoint or no `postLogoutRedirectUri` is registered. The retained ID
   * token is sent as `id_token_hint` when there is one; a vault failure only drops the hint.
   */
  async logout(input: {
    readonly provider: string
    readonly accountId: string
    readonly state?: string
  }): Promise<{
    readonly endSessionUrl: string | null
  }> {
    const registration = this.#registration(input?.provider)
    const post = registration.postLogoutRedirectUri
    if (post === undefined) return { endSessionUrl: null }
    let idTokenHint: string | undefined
    try {
      const link = await registration.accounts.resolveLink({
        accountId: input.accountId,
        provider: registration.name,
      })
      const stored = link === null ? null : await registration.accounts.getTokens(link.providerAccountId)
      idTokenHint = stored?.tokens.idToken ?? undefined
    } catch {
      idTokenHint = undefined
    }
    return {
      endSessionUrl: registration.provider.endSessionUrl({
        postLogoutRedirectUri: post,
        ...(idTokenHint === undefined ? {} : { idTokenHint }),
        ...(input.state === undefined ? {} : { state: input.state }),
      }),
    }
  }

  /** Closes every provider's own HTTP client (never the shared discovery client or JWKS provider). */
  async close(): Promise<void> {
    await Promise.all([...this.#registrations.values()].map((registration) => registration.provider.close()))
  }

  #registration(name: unknown): Registration {
    const registration = typeof name === 'string' ? this.#registrations.get(name) : undefined
    if (registration === undefined) {
      throw new OIDCError(OIDCErrorCodes.unknownProvider, 'unknown OAuth provider')
    }
    return registration
  }

  async #link(registration: Registration, accountId: string): Promise<LinkedProviderAccount> {
    const link = await registration.accounts.resolveLink({ accountId, provider: registration.name })
    if (link === null)
      throw new OIDCError(OIDCErrorCodes.notLinked, 'the account has no link with this provider')
    return link
  }

  async #consumeStepUp(
    input: { session: LocalSession; stepUpToken: string },
    purpose: string,
  ): Promise<void> {
    const result = await this.#stepUp.consume({
      token: input.stepUpToken,
      accountId: input.session.accountId,
      purpose,
      securityEpoch: input.session.securityEpoch,
      sessionBinding: input.session.sessionHandle,
    })
    if (result.kind === 'consumed') return
    if (result.kind === 'unavailable') {
      throw new OIDCError(OIDCErrorCodes.dependencyUnavailable, 'the step-up store is unavailable', {
        reason: 'step-up-unavailable',
      })
    }
    throw new OIDCError(OIDCErrorCodes.stepUpRequired, 'a valid step-up credential is required', {
      reason: `step-up-${result.reason}`,
    })
  }

  #now(): Date {
    const now = this.#clock()
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new ConfigurationError('oidc.lifecycle.clock_invalid', 'clock returned an invalid Date')
    }
    return now
  }
}
