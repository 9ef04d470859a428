import type { AccountSession } from '../accounts/service.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { StepUpCredential } from '../step-up/credential.js'
import { requirePurpose } from '../step-up/input.js'
import type { StepUpService } from '../step-up/service.js'
import type { PasskeyCeremonies, PasskeyStepUpBinding } from './ceremonies.js'
import type { PasskeyCeremonyStart } from './ceremony-start.js'

export interface PasskeyStepUpOptions {
  readonly passkeys: PasskeyCeremonies
  /** The step-up service whose one-use credentials `requiresStepUp(purpose)` consumes. */
  readonly stepUp: StepUpService
}

/** The caller's session and the purpose a passkey step-up earns a credential for. */
export interface PasskeyStepUpRequest {
  readonly session: AccountSession
  readonly purpose: string
}

/**
 * A passkey assertion as a step-up: the ceremony's challenge is bound to the caller's account, session
 * and purpose, and a verified assertion (user verification required) with one of the account's own
 * passkeys earns the same one-use `StepUpCredential` a password re-entry or a provider reauthentication
 * earns, bound to the account, purpose, security epoch and session. So every `requiresStepUp(purpose)`
 * guard accepts a passkey.
 */
export class PasskeyStepUp {
  readonly #passkeys: PasskeyCeremonies
  readonly #stepUp: StepUpService

  constructor(options: PasskeyStepUpOptions) {
    if (
      typeof options?.passkeys?.finishAuthentication !== 'function' ||
      typeof options.stepUp?.issue !== 'function'
    ) {
      throw new ConfigurationError('passkey.invalid_config', 'PasskeyStepUp needs passkeys and stepUp')
    }
    this.#passkeys = options.passkeys
    this.#stepUp = options.stepUp
  }

  /** Options for `navigator.credentials.get()` listing only the account's usable passkeys. */
  async begin(
    request: PasskeyStepUpRequest & { readonly browserBinding?: string | undefined },
  ): Promise<PasskeyCeremonyStart> {
    return this.#passkeys.beginAuthentication({
      browserBinding: request.browserBinding,
      stepUp: binding(request),
    })
  }

  /**
   * Verifies the assertion against the challenge `begin` bound to this session and purpose, then issues
   * the one-use credential. Another account's passkey, another session's or purpose's challenge, a
   * replayed or foreign-browser challenge: refused (`passkey.*`, nothing issued).
   */
  async finish(
    request: PasskeyStepUpRequest & {
      readonly browserBinding: string | undefined
      readonly response: unknown
      readonly clientAddress?: string | undefined
    },
  ): Promise<StepUpCredential> {
    const bound = binding(request)
    await this.#passkeys.finishAuthentication({
      browserBinding: request.browserBinding,
      response: request.response,
      stepUp: bound,
      clientAddress: request.clientAddress,
    })
    return this.#stepUp.issue({
      accountId: bound.accountId,
      purpose: bound.purpose,
      securityEpoch: request.session.securityEpoch,
      sessionBinding: bound.sessionBinding,
    })
  }
}

function binding(request: PasskeyStepUpRequest): PasskeyStepUpBinding {
  return {
    accountId: request.session.accountId,
    sessionBinding: request.session.sessionHandle,
    purpose: requirePurpose(request.purpose),
  }
}
