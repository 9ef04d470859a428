import type { AccountStore } from '../accounts/port.js'
import { LocalAuthError } from './auth-errors.js'
import { invalidLocalInput } from './errors.js'
import type { LocalAuthProfile, LocalTransport } from './local-accounts-options.js'
import { type PasswordFlowParts, verifyCredentials } from './passwords/password-flows.js'
import { providerSessionTags } from './provider-session.js'
import { defined, type LocalRuntime } from './runtime.js'
import type { PendingSecondFactor, SecondFactorGate } from './second-factor.js'
import type { SessionManager } from './sessions/session-manager.js'
import type { EstablishSignInRequest, LocalRequestInfo, LocalSignIn, SignInOptions } from './sign-in.js'
import { chooseTransport, refuseDisabled } from './sign-in-rules.js'
import { MAX_SESSION_USER_AGENT_LENGTH } from './store-input.js'
import type { TokenManager } from './tokens/token-manager.js'

/** What the sign-in flows need of their `LocalAccounts`. */
export interface SignInParts {
  readonly profile: LocalAuthProfile
  readonly accounts: AccountStore
  readonly runtime: LocalRuntime
  readonly flows: PasswordFlowParts
  readonly secondFactor: SecondFactorGate | undefined
  readonly sessions: SessionManager | undefined
  readonly tokens: TokenManager | undefined
  readonly clientAddress: (info: LocalRequestInfo) => string | undefined
}

const AMR_VALUE = /^[a-z]{1,16}$/

/** RFC 8176 method references as given to `establishSignIn`: at most eight short lower-case names. */
function readAmr(value: unknown): readonly string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > 8 ||
    !value.every((item) => typeof item === 'string' && AMR_VALUE.test(item))
  ) {
    throw invalidLocalInput('amr must be 1-8 lower-case method names')
  }
  return Object.freeze([...value])
}

/** `login.succeeded`, with the request's user agent (bounded) and how the person signed in. */
function emitSignedIn(
  runtime: LocalRuntime,
  accountId: string,
  clientAddress: string | undefined,
  info: LocalRequestInfo,
  amr: readonly string[] | undefined,
): void {
  const userAgent = info.userAgent?.slice(0, MAX_SESSION_USER_AGENT_LENGTH)
  runtime.emit(
    'login.succeeded',
    defined({
      accountId,
      clientAddress,
      userAgent: userAgent === '' ? undefined : userAgent,
      amr: amr === undefined || amr.length === 0 ? undefined : amr.join(' '),
    }),
  )
}

/** The profile's session manager, or `local.invalid_input` for a profile without sessions. */
export function sessionsOf(parts: Pick<SignInParts, 'profile' | 'sessions'>): SessionManager {
  if (parts.sessions === undefined) throw invalidLocalInput(`the ${parts.profile} profile has no sessions`)
  return parts.sessions
}

/** The profile's token manager, or `local.invalid_input` for a profile without tokens. */
export function tokensOf(parts: Pick<SignInParts, 'profile' | 'tokens'>): TokenManager {
  if (parts.tokens === undefined) throw invalidLocalInput(`the ${parts.profile} profile has no tokens`)
  return parts.tokens
}

/**
 * The ways into a session or token pair (`LocalAccounts.login`, `completeSecondFactor`,
 * `establishSignIn`). Each reads the epoch generation before the account, so a revocation notice that
 * overtakes the read is never cached over, refuses disabled accounts, and emits `login.succeeded`.
 */
export class SignIns {
  readonly #parts: SignInParts

  constructor(parts: SignInParts) {
    this.#parts = parts
  }

  async login(body: unknown, options: SignInOptions): Promise<LocalSignIn | PendingSecondFactor> {
    const { profile, runtime, flows, secondFactor } = this.#parts
    const transport = chooseTransport(profile, options.transport)
    const info = options.request ?? {}
    const clientAddress = this.#parts.clientAddress(info)
    const generation = runtime.epochs.generation
    const userAgent = info.userAgent?.slice(0, MAX_SESSION_USER_AGENT_LENGTH)
    const account = await verifyCredentials(
      flows,
      body,
      clientAddress,
      userAgent === '' ? undefined : userAgent,
    )
    refuseDisabled(runtime, account, clientAddress)
    const pending = await secondFactor?.begin({
      accountId: account.accountId,
      securityEpoch: account.securityEpoch,
      transport,
      clientAddress,
    })
    if (pending) {
      runtime.emit('second_factor.required', defined({ accountId: account.accountId, clientAddress }))
      return pending
    }
    emitSignedIn(runtime, account.accountId, clientAddress, info, ['pwd'])
    return this.#establish(account, generation, transport, options.replacesSessionId, info, ['pwd'])
  }

  async completeSecondFactor(body: unknown, options: SignInOptions): Promise<LocalSignIn> {
    const { runtime, accounts, secondFactor } = this.#parts
    if (secondFactor === undefined) throw invalidLocalInput('no second factor is configured')
    const info = options.request ?? {}
    const clientAddress = this.#parts.clientAddress(info)
    const done = await secondFactor.complete(body, { clientAddress, transport: options.transport })
    const generation = runtime.epochs.generation
    const account = await accounts.getAccount(done.accountId)
    if (account === null || account.securityEpoch !== done.securityEpoch) {
      throw new LocalAuthError('local.sign_in_required', 'the account changed during the sign-in')
    }
    refuseDisabled(runtime, account, clientAddress)
    emitSignedIn(runtime, account.accountId, clientAddress, info, done.amr)
    return this.#establish(account, generation, done.transport, options.replacesSessionId, info, done.amr)
  }

  async establish(request: EstablishSignInRequest): Promise<LocalSignIn> {
    const { profile, runtime, accounts } = this.#parts
    if (
      typeof request !== 'object' ||
      request === null ||
      typeof request.accountId !== 'string' ||
      request.accountId === ''
    ) {
      throw invalidLocalInput('accountId must be a non-empty string')
    }
    const transport = chooseTransport(profile, request.transport)
    const generation = runtime.epochs.generation
    const account = await accounts.getAccount(request.accountId)
    if (account === null) throw new LocalAuthError('local.account_not_found', 'the account does not exist')
    const info = request.request ?? {}
    const clientAddress = this.#parts.clientAddress(info)
    refuseDisabled(runtime, account, clientAddress)
    const amr = request.amr === undefined ? undefined : readAmr(request.amr)
    emitSignedIn(runtime, account.accountId, clientAddress, info, amr)
    const tags =
      request.providerSession === undefined
        ? undefined
        : providerSessionTags(request.providerSession, runtime.random)
    return this.#establish(account, generation, transport, request.replacesSessionId, info, amr, tags)
  }

  async #establish(
    account: { readonly accountId: string; readonly securityEpoch: number },
    generation: number,
    transport: LocalTransport,
    replacesSessionId: string | undefined,
    info: LocalRequestInfo,
    amr: readonly string[] | undefined,
    handleTags?: readonly string[],
  ): Promise<LocalSignIn> {
    this.#parts.runtime.epochs.remember(account.accountId, account.securityEpoch, generation)
    if (transport === 'tokens') {
      return tokensOf(this.#parts).issue(account.accountId, account.securityEpoch, amr)
    }
    return sessionsOf(this.#parts).create({
      accountId: account.accountId,
      securityEpoch: account.securityEpoch,
      replaces: replacesSessionId,
      clientAddress: this.#parts.clientAddress(info),
      userAgent: info.userAgent,
      handleTags,
    })
  }
}
