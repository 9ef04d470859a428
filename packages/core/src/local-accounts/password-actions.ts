import type { AccountStore } from '../accounts/port.js'
import { isImpersonationHandle } from '../impersonation/handle.js'
import { StepUpError, StepUpErrorCodes } from '../step-up/errors.js'
import type { AccountEpochs } from './account-epochs.js'
import type { LocalCredentials } from './local-credentials.js'
import { issueInviteCode } from './passwords/invites.js'
import {
  changeAccountPassword,
  confirmAccountPassword,
  type PasswordFlowParts,
  registerAccount,
  resetAccountPassword,
} from './passwords/password-flows.js'
import { type PasswordScreenContext, screenNewPassword } from './passwords/password-screen.js'
import type { LocalRuntime } from './runtime.js'
import type { LocalRequestInfo, SessionSignIn, TokenSignIn } from './sign-in.js'

/** A password change as `LocalAccounts.changePassword` takes it. */
export interface ChangePasswordRequest {
  readonly accountId: string
  readonly body: unknown
  readonly credentials: LocalCredentials
  readonly request?: LocalRequestInfo
}

/**
 * What `LocalAccounts` does with passwords: registration, confirmation before a sensitive action, the
 * signed-in change, the administrator's reset, screening and invite codes. A change or reset moves the
 * security epoch, so every session and token family of the account ends.
 */
export class PasswordActions {
  readonly #flows: PasswordFlowParts
  readonly #epochs: AccountEpochs
  readonly #accounts: AccountStore
  readonly #runtime: LocalRuntime

  constructor(parts: {
    readonly flows: PasswordFlowParts
    readonly epochs: AccountEpochs
    readonly accounts: AccountStore
    readonly runtime: LocalRuntime
  }) {
    this.#flows = parts.flows
    this.#epochs = parts.epochs
    this.#accounts = parts.accounts
    this.#runtime = parts.runtime
  }

  register(
    body: unknown,
    clientAddress: string | undefined,
  ): Promise<{ readonly accountId: string; readonly username: string }> {
    return registerAccount(this.#flows, body, clientAddress)
  }

  async confirm(accountId: string, password: unknown, clientAddress: string | undefined): Promise<void> {
    await confirmAccountPassword(this.#flows, accountId, password, clientAddress)
  }

  /**
   * Changes the signed-in account's password, then moves the security epoch and renews the caller's own
   * sign-in at the new epoch. An impersonation is refused before anything is read.
   */
  async change(
    request: ChangePasswordRequest,
    clientAddress: string | undefined,
  ): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }> {
    if (isImpersonationHandle(request.credentials?.sessionHandle)) {
      throw new StepUpError(StepUpErrorCodes.impersonated, 'an impersonation cannot change the password')
    }
    const updated = await changeAccountPassword(this.#flows, request.accountId, request.body, clientAddress)
    await this.#epochs.endEverything(updated.accountId, 'epoch_bumped', clientAddress)
    return this.#epochs.renew({
      accountId: updated.accountId,
      securityEpoch: updated.securityEpoch,
      credentials: request.credentials,
      request: request.request ?? {},
      amr: ['pwd'],
    })
  }

  /** The administrator's reset (no old password); false for an unknown account. */
  async resetByAdministrator(accountId: string, newPassword: string): Promise<boolean> {
    const updated = await resetAccountPassword(this.#flows, accountId, newPassword)
    if (updated === null) return false
    await this.#epochs.endEverything(accountId, 'revoked_by_admin', undefined)
    return true
  }

  screen(password: string, context: PasswordScreenContext): Promise<void> {
    return screenNewPassword(this.#flows.screen, password, context)
  }

  issueInvite(options: {
    readonly expiresInSeconds?: number
  }): Promise<{ readonly code: string; readonly expiresAt: Date }> {
    return issueInviteCode(this.#accounts, this.#runtime, options)
  }
}
