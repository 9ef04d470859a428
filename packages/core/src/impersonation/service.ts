import { consumeStepUp } from '../accounts/step-up.js'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { type AuthenticationOutcome, authenticated, invalid } from '../authentication/outcome.js'
import type { Impersonator } from '../authentication/principal.js'
import { type AuthorizationResolver, resolveAuthorization } from '../authorization/resolver.js'
import type { AuthorizationSnapshot } from '../authorization/snapshot.js'
import { readOptions } from '../errors/options.js'
import { ConfigurationError, isPortcullisError } from '../errors/portcullis-error.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import { csrfTokenForSession } from '../local-accounts/sessions/csrf.js'
import { serializeSessionCookie } from '../local-accounts/sessions/session-cookie.js'
import { SESSION_HANDLE_ATTRIBUTE } from '../local-accounts/sessions/session-mechanism.js'
import type { LocalRequestInfo } from '../local-accounts/sign-in.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import type { StepUpService } from '../step-up/service.js'
import { ImpersonationError, ImpersonationErrorCodes } from './errors.js'
import {
  clearImpersonationCookie,
  type ImpersonationCookie,
  type ImpersonationFacts,
  openFacts,
  readImpersonationCookie,
  sealFacts,
  serializeImpersonationCookie,
} from './facts.js'
import { administratorTag, impersonationIdOf, impersonationTagsOf, isImpersonationHandle } from './handle.js'
import { type AdministratorSession, requireReason, requireTarget } from './input.js'
import {
  DEFAULT_IMPERSONATE_ADMINISTRATORS_CAPABILITY,
  DEFAULT_IMPERSONATION_CAPABILITY,
  DEFAULT_IMPERSONATION_TTL_SECONDS,
  IMPERSONATION_STEP_UP_PURPOSE,
  IMPERSONATIONS_OPTIONS,
  type ImpersonationsOptions,
  MAX_IMPERSONATION_TTL_SECONDS,
} from './options.js'
import {
  type ImpersonationRefusal,
  type ImpersonationRefusalRequest,
  recordRefusal,
  refuseImpersonated,
} from './refusal.js'
import { type EndedImpersonation, hidden, type StartedImpersonation } from './results.js'

const MAX_REMEMBERED = 10_000
/** Characters of one handle tag. */
const TAG = 11

/**
 * Audited impersonation: an administrator holding the capability, with a fresh one-use step-up and a
 * reason, opens a short-lived session as another account (never another administrator's, unless a
 * separate capability allows it). The impersonated principal carries `impersonator`; its grants are the
 * target's, resolved by the application's resolver. No step-up credential is ever issued to it, so it
 * cannot change a password, an address or a factor, nor delete the account. It ends at its bound, when
 * the administrator ends it, or when the administrator's own sessions end.
 */
export class Impersonations {
  readonly capability: string
  readonly administratorsCapability: string
  readonly ttlSeconds: number
  readonly cookie: ImpersonationCookie
  readonly #local: LocalAccounts
  readonly #stepUp: StepUpService
  readonly #protector: OAuthTransactionProtector
  readonly #resolver: AuthorizationResolver
  readonly #isAdministrator: (snapshot: AuthorizationSnapshot) => boolean
  readonly #clock: () => number
  readonly #onError: ((error: unknown) => void) | undefined
  /** Administrator tag (a handle's second slot) -> the administrator, as this instance saw them. Bounded. */
  readonly #administrators = new Map<string, string>()
  /** Cookie value -> its opened facts (a cookie is immutable), so a request pays the protector once. */
  readonly #opened = new Map<string, ImpersonationFacts>()

  constructor(options: ImpersonationsOptions) {
    readOptions(options, 'Impersonations', IMPERSONATIONS_OPTIONS)
    const session = options.local.sessionCookie
    if (session === undefined || options.local.sessionMechanismName === undefined) {
      throw new ConfigurationError(
        'impersonation.invalid_config',
        'impersonation needs local accounts with sessions (the session or hybrid profile)',
      )
    }
    const ttl = options.ttlSeconds ?? DEFAULT_IMPERSONATION_TTL_SECONDS
    if (!Number.isSafeInteger(ttl) || ttl < 60 || ttl > MAX_IMPERSONATION_TTL_SECONDS) {
      throw new ConfigurationError(
        'impersonation.invalid_config',
        `ttlSeconds must be an integer from 60 to ${MAX_IMPERSONATION_TTL_SECONDS}`,
      )
    }
    this.capability = options.capability ?? DEFAULT_IMPERSONATION_CAPABILITY
    this.administratorsCapability =
      options.administratorsCapability ?? DEFAULT_IMPERSONATE_ADMINISTRATORS_CAPABILITY
    if (this.capability === '' || this.administratorsCapability === '') {
      throw new ConfigurationError('impersonation.invalid_config', 'capabilities must be non-empty')
    }
    this.ttlSeconds = ttl
    this.cookie = Object.freeze({
      name: session.secure ? '__Host-portcullis-impersonation' : 'portcullis-impersonation',
      secure: session.secure,
      sameSite: session.sameSite,
    })
    this.#local = options.local
    this.#stepUp = options.stepUp
    this.#protector = options.protector
    this.#resolver = options.authorizationResolver
    this.#isAdministrator =
      options.isAdministrator ??
      ((snapshot) =>
        snapshot.hasCapability(this.capability) || snapshot.hasCapability(this.administratorsCapability))
    this.#clock = options.clock ?? Date.now
    this.#onError = options.onError
    options.events.attach({
      administratorOf: (handle) => this.#administrators.get(handle.slice(TAG, 2 * TAG)),
      endStartedBy: (administratorId) => this.endStartedBy(administratorId),
    })
  }

  /**
   * `mechanisms` with the local session mechanism wrapped: a session an impersonation opened
   * authenticates only with its impersonation cookie, within its bound, and its principal carries
   * `impersonator`. Register these with the security instead of `local.mechanisms`.
   */
  mechanisms(mechanisms: readonly AuthenticationMechanism[]): AuthenticationMechanism[] {
    const name = this.#local.sessionMechanismName
    return mechanisms.map((mechanism) => (mechanism.name === name ? this.#wrap(mechanism) : mechanism))
  }

  /**
   * Starts an impersonation of `accountId` for the signed-in administrator. Throws (before anything is
   * opened) `impersonation.nested`, `impersonation.forbidden`, `impersonation.invalid_input`,
   * `step-up.required` / `step-up.unavailable` (the one-use credential, spent here), then
   * `impersonation.target_not_found`, `impersonation.target_is_administrator`, `impersonation.unavailable`.
   */
  async start(request: {
    readonly administrator: AdministratorSession
    /** The administrator's snapshot, as route policy resolved it. */
    readonly snapshot: AuthorizationSnapshot
    /** The administrator principal's own `impersonator`, when the request is an impersonation already. */
    readonly impersonator?: Impersonator | undefined
    readonly accountId: unknown
    readonly reason: unknown
    readonly stepUpToken: string
    readonly request?: LocalRequestInfo
  }): Promise<StartedImpersonation> {
    const { administrator } = request
    if (request.impersonator !== undefined || isImpersonationHandle(administrator.sessionHandle)) {
      throw new ImpersonationError(ImpersonationErrorCodes.nested, 'an impersonation cannot impersonate')
    }
    if (!request.snapshot.hasCapability(this.capability)) {
      throw new ImpersonationError(ImpersonationErrorCodes.forbidden, 'the caller may not impersonate')
    }
    const accountId = requireTarget(request.accountId)
    const reason = requireReason(request.reason)
    if (accountId === administrator.accountId) {
      throw new ImpersonationError(
        ImpersonationErrorCodes.invalidInput,
        'an administrator cannot impersonate themselves',
      )
    }
    await consumeStepUp(this.#stepUp, administrator, request.stepUpToken, IMPERSONATION_STEP_UP_PURPOSE)
    this.#local.emit('step_up.consumed', {
      accountId: administrator.accountId,
      purpose: IMPERSONATION_STEP_UP_PURPOSE,
      sessionHandle: administrator.sessionHandle,
    })
    const target = await resolveAuthorization(this.#resolver, {
      principal: { id: accountId, kind: 'user' },
      evidence: [],
    })
    if (target.kind === 'unavailable') {
      throw new ImpersonationError(ImpersonationErrorCodes.unavailable, 'the authorization resolver failed')
    }
    if (target.kind === 'rejected') throw notFound()
    if (
      this.#isAdministrator(target.snapshot) &&
      !request.snapshot.hasCapability(this.administratorsCapability)
    ) {
      throw new ImpersonationError(
        ImpersonationErrorCodes.targetIsAdministrator,
        'the account is an administrator',
      )
    }
    const startedAt = this.#clock()
    const expiresAt = startedAt + this.ttlSeconds * 1000
    // Known before the session exists, so its `session.created` already names the administrator.
    this.#remember(administrator.accountId)
    const signIn = await this.#local
      .openSession({
        accountId,
        handleTags: impersonationTagsOf(administrator.accountId),
        expiresAt: new Date(expiresAt),
        ...(request.request === undefined ? {} : { request: request.request }),
      })
      .catch((error: unknown) => {
        if (isPortcullisError(error) && error.code === 'local.account_not_found') throw notFound()
        throw error
      })
    const impersonationId = impersonationIdOf(signIn.handle) as string
    const facts: ImpersonationFacts = {
      impersonationId,
      administratorId: administrator.accountId,
      administratorSessionId: administrator.sessionId,
      accountId,
      sessionHandle: signIn.handle,
      startedAt,
      expiresAt,
    }
    const sealed = await sealFacts(this.#protector, facts).catch((error: unknown) => {
      this.#local.revokeSession(accountId, signIn.handle).catch(() => {})
      throw new ImpersonationError(ImpersonationErrorCodes.unavailable, 'the protector failed', {
        cause: error,
      })
    })
    this.#opened.set(sealed, Object.freeze(facts))
    const clientAddress = this.#local.clientAddress(request.request)
    this.#local.emit('impersonation.started', {
      accountId,
      actorId: administrator.accountId,
      impersonationId,
      reason,
      sessionHandle: signIn.handle,
      expiresInSeconds: this.ttlSeconds,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    return hidden(
      {
        impersonationId,
        accountId,
        administratorId: administrator.accountId,
        expiresAt: new Date(expiresAt),
        setCookies: [signIn.setCookie, serializeImpersonationCookie(this.cookie, sealed, this.ttlSeconds)],
        csrfToken: signIn.csrfToken,
      },
      ['setCookies', 'csrfToken'],
    )
  }

  /**
   * Ends the request's impersonation (the administrator's end button): its session ends on every
   * instance, and the administrator's own session is handed back. Throws
   * `impersonation.not_impersonating` for a request that is not an impersonation.
   */
  async end(request: {
    readonly impersonator: Impersonator | undefined
    readonly sessionHandle: string | undefined
    readonly cookieHeader: string | readonly string[] | undefined
    readonly request?: LocalRequestInfo
  }): Promise<EndedImpersonation> {
    const handle = request.sessionHandle
    const value = readImpersonationCookie(this.cookie, request.cookieHeader)
    const facts =
      request.impersonator === undefined || handle === undefined || value === undefined
        ? null
        : await this.#facts(value, handle)
    if (facts === null || facts.impersonationId !== request.impersonator?.impersonationId) {
      throw new ImpersonationError(
        ImpersonationErrorCodes.notImpersonating,
        'the request is not an impersonation',
      )
    }
    await this.#local.revokeSession(facts.accountId, facts.sessionHandle, request.request ?? {})
    this.#opened.delete(value as string)
    const clientAddress = this.#local.clientAddress(request.request)
    this.#local.emit('impersonation.ended', {
      actorId: facts.administratorId,
      reason: 'ended_by_administrator',
      accountId: facts.accountId,
      impersonationId: facts.impersonationId,
      sessionHandle: facts.sessionHandle,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    const session = this.#local.sessionCookie
    return hidden(
      {
        impersonationId: facts.impersonationId,
        accountId: facts.accountId,
        administratorId: facts.administratorId,
        setCookies: [
          serializeSessionCookie(session as NonNullable<typeof session>, facts.administratorSessionId),
          clearImpersonationCookie(this.cookie),
        ],
        csrfToken: csrfTokenForSession(facts.administratorSessionId),
      },
      ['setCookies', 'csrfToken'],
    )
  }

  /**
   * Refuses `act` (`ImpersonationRefusedActs`, or the application's own `noun.verb`) to an
   * impersonated `principal`: records `impersonation.refused` naming the administrator and throws it
   * (403). Nothing for anyone acting as themselves. Call it before making what would outlast it.
   */
  refuse(request: ImpersonationRefusalRequest): void {
    refuseImpersonated(this.#local, request)
  }

  /** Records `impersonation.refused` for a refusal made elsewhere (the authorization server's pages). */
  recordRefusal(refusal: ImpersonationRefusal): void {
    recordRefusal(this.#local, refusal)
  }

  /**
   * Ends every impersonation `administratorId` started, on every instance (the store announces each
   * ended session): what the administrator's own sign-out does through `ImpersonationEvents`. How many
   * ended; never rejects (a failure goes to `onError`, and the impersonations still end at their bound).
   */
  async endStartedBy(administratorId: string): Promise<number> {
    try {
      const ended = await this.#local.revokeTaggedSessions(impersonationTagsOf(administratorId))
      if (ended > 0) {
        this.#local.emit('impersonation.ended', {
          actorId: administratorId,
          reason: 'administrator_signed_out',
          sessions: ended,
        })
      }
      return ended
    } catch (error) {
      try {
        this.#onError?.(error)
      } catch {
        // the handler failed as well; the bound still ends the impersonations
      }
      return 0
    }
  }

  #wrap(mechanism: AuthenticationMechanism): AuthenticationMechanism {
    return {
      name: mechanism.name,
      ...(mechanism.default === undefined ? {} : { default: mechanism.default }),
      securityScheme: mechanism.securityScheme,
      authenticate: (source) => {
        const outcome = mechanism.authenticate(source)
        if (outcome instanceof Promise) return outcome.then((settled) => this.#verify(settled, source))
        return this.#verify(outcome, source)
      },
    }
  }

  #verify(
    outcome: AuthenticationOutcome,
    source: { header(name: string): string | undefined },
  ): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    if (outcome.kind !== 'authenticated') return outcome
    const handle = outcome.evidence.attributes?.[SESSION_HANDLE_ATTRIBUTE]
    if (typeof handle !== 'string' || !isImpersonationHandle(handle)) return outcome
    const value = readImpersonationCookie(this.cookie, source.header('cookie'))
    if (value === undefined) return invalid('impersonation: no impersonation cookie')
    const known = this.#opened.get(value)
    if (known !== undefined && known.sessionHandle === handle) return this.#settle(outcome, known)
    return this.#facts(value, handle).then(
      (facts) => (facts === null ? invalid('impersonation: cookie refused') : this.#settle(outcome, facts)),
      () => invalid('impersonation: cookie refused'),
    )
  }

  #settle(outcome: Extract<AuthenticationOutcome, { kind: 'authenticated' }>, facts: ImpersonationFacts) {
    const { principal, evidence } = outcome
    if (facts.accountId !== principal.id) return invalid('impersonation: cookie of another account')
    if (!(this.#clock() < facts.expiresAt)) {
      this.#local.revokeSession(facts.accountId, facts.sessionHandle).catch(() => {})
      return invalid('impersonation: past its bound')
    }
    this.#remember(facts.administratorId)
    const impersonator = Object.freeze({
      accountId: facts.administratorId,
      impersonationId: facts.impersonationId,
    })
    return authenticated(Object.freeze({ ...principal, impersonator }), {
      ...evidence,
      attributes: {
        ...evidence.attributes,
        impersonatorId: facts.administratorId,
        impersonationId: facts.impersonationId,
      },
    })
  }

  async #facts(value: string, handle: string): Promise<ImpersonationFacts | null> {
    const known = this.#opened.get(value)
    if (known !== undefined) return known.sessionHandle === handle ? known : null
    const facts = await openFacts(this.#protector, value, handle)
    if (facts === null || impersonationIdOf(handle) !== facts.impersonationId) return null
    if (this.#opened.size >= MAX_REMEMBERED) this.#opened.delete(this.#opened.keys().next().value as string)
    this.#opened.set(value, facts)
    return facts
  }

  #remember(administratorId: string): void {
    const tag = administratorTag(administratorId)
    if (this.#administrators.has(tag)) return
    if (this.#administrators.size >= MAX_REMEMBERED) {
      this.#administrators.delete(this.#administrators.keys().next().value as string)
    }
    this.#administrators.set(tag, administratorId)
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Impersonations { ttlSeconds: ${this.ttlSeconds} }`
  }
}

function notFound(): ImpersonationError {
  return new ImpersonationError(ImpersonationErrorCodes.targetNotFound, 'no active account with this id')
}
