import type { AccountStore } from '../accounts/port.js'
import type { Impersonator } from '../authentication/principal.js'
import type { LocalCredentials } from './local-credentials.js'
import type { LocalRuntime } from './runtime.js'
import type { EpochBumpReason, SessionRevocationReason } from './security-events.js'
import type { SessionManager } from './sessions/session-manager.js'
import type { LocalRequestInfo, SessionSignIn, TokenSignIn } from './sign-in.js'
import type { TokenManager } from './tokens/token-manager.js'

/**
 * What this instance does when an account's security epoch moves (a password change or removal, an unlink,
 * sign-out everywhere, disabling) or the account is deleted: believe the new epoch at once here, end the
 * account's sessions and token families in their stores, and keep the caller signed in when asked.
 */
export class AccountEpochs {
  readonly #accounts: AccountStore
  readonly #runtime: LocalRuntime
  readonly #sessions: SessionManager | undefined
  readonly #tokens: TokenManager | undefined
  readonly #clientAddress: (info: LocalRequestInfo) => string | undefined

  constructor(parts: {
    readonly accounts: AccountStore
    readonly runtime: LocalRuntime
    readonly sessions: SessionManager | undefined
    readonly tokens: TokenManager | undefined
    readonly clientAddress: (info: LocalRequestInfo) => string | undefined
  }) {
    this.#accounts = parts.accounts
    this.#runtime = parts.runtime
    this.#sessions = parts.sessions
    this.#tokens = parts.tokens
    this.#clientAddress = parts.clientAddress
  }

  async signOutEverywhere(
    accountId: string,
    reason: EpochBumpReason,
    clientAddress: string | undefined,
    impersonator?: Impersonator,
  ): Promise<number | null> {
    const generation = this.#runtime.epochs.generation
    const epoch = await this.#accounts.bumpSecurityEpoch({ accountId, now: new Date(this.#runtime.clock()) })
    if (epoch === null) return null
    await this.moved({ accountId, securityEpoch: epoch, reason, clientAddress, generation, impersonator })
    return epoch
  }

  async moved(request: {
    readonly accountId: string
    readonly securityEpoch: number
    readonly reason: EpochBumpReason
    readonly clientAddress?: string | undefined
    /** The caches' generation read before the store moved the epoch; without it the next check reads. */
    readonly generation?: number
    /** The impersonation that moved the epoch: its events name the administrator. */
    readonly impersonator?: Impersonator | undefined
  }): Promise<void> {
    this.#believe(request.accountId, request.securityEpoch, request.generation)
    const { impersonator } = request
    this.#runtime.emit('epoch.bumped', {
      accountId: request.accountId,
      epoch: request.securityEpoch,
      reason: request.reason,
      ...(impersonator === undefined
        ? {}
        : { actorId: impersonator.accountId, impersonationId: impersonator.impersonationId }),
    })
    await this.endEverything(request.accountId, 'epoch_bumped', request.clientAddress, impersonator)
  }

  async renew(request: {
    readonly accountId: string
    readonly securityEpoch: number
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
    readonly amr?: readonly string[]
  }): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }> {
    const info = request.request ?? {}
    const { sessionHandle, familyId } = request.credentials
    const result: { session?: SessionSignIn; tokens?: TokenSignIn } = {}
    this.#believe(request.accountId, request.securityEpoch, undefined)
    if (sessionHandle !== undefined && this.#sessions !== undefined) {
      result.session = await this.#sessions.create({
        accountId: request.accountId,
        securityEpoch: request.securityEpoch,
        clientAddress: this.#clientAddress(info),
        userAgent: info.userAgent,
      })
    }
    if (familyId !== undefined && this.#tokens !== undefined) {
      result.tokens = await this.#tokens.issue(request.accountId, request.securityEpoch, request.amr)
    }
    return result
  }

  /**
   * Believes an epoch this instance moved, unless a notice may have reached the caches since the move
   * (no `generation` read before it): then the entry is dropped and the next check reads the store.
   */
  #believe(accountId: string, securityEpoch: number, generation: number | undefined): void {
    if (generation === undefined) this.#runtime.epochs.forget(accountId)
    else this.#runtime.epochs.remember(accountId, securityEpoch, generation)
  }

  deleted(accountId: string): void {
    this.#runtime.epochs.forget(accountId)
  }

  async endEverything(
    accountId: string,
    reason: SessionRevocationReason,
    clientAddress: string | undefined,
    impersonator?: Impersonator,
  ): Promise<void> {
    await this.#sessions?.revokeAccount(accountId, reason, { clientAddress, impersonator })
    await this.#tokens?.revokeAccount(accountId)
  }
}
