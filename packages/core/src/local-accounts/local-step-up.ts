import type { AuthenticationEvidence } from '../authentication/principal.js'
import type { StepUpVerifier } from '../authorization/step-up.js'
import type { StepUpCredential } from '../step-up/credential.js'
import { invalidStepUpInput } from '../step-up/errors.js'
import type { StepUpService } from '../step-up/service.js'
import type { LocalCredentials } from './local-credentials.js'
import { defined, type LocalRuntime } from './runtime.js'

/**
 * What a step-up credential of a local sign-in is bound to: its epoch and its session handle or token
 * family, as it is, the binding every other step-up (password, passkey, provider) uses for the same
 * request, so a credential earned by any of them is accepted here.
 */
function bindingOf(
  credentials: LocalCredentials,
): { securityEpoch: number; sessionBinding: string } | undefined {
  if (credentials.securityEpoch === undefined) return undefined
  const handle = credentials.sessionHandle ?? credentials.familyId
  if (handle === undefined) return undefined
  return { securityEpoch: credentials.securityEpoch, sessionBinding: handle }
}

/**
 * Step-up credentials for local sign-ins (`local.stepUp(service)`): bound to the account's security epoch
 * and to the session (its handle) or token family the request came with, and reported as
 * `step_up.issued` / `step_up.consumed` security events.
 */
export class LocalStepUp {
  /** For `createSecurity({ stepUp: { verifier } })`: consumes a credential for `requiresStepUp(purpose)`. */
  readonly verifier: StepUpVerifier
  readonly #service: StepUpService
  readonly #credentialsOf: (evidence: readonly AuthenticationEvidence[]) => LocalCredentials
  readonly #runtime: LocalRuntime

  constructor(
    service: StepUpService,
    credentialsOf: (evidence: readonly AuthenticationEvidence[]) => LocalCredentials,
    runtime: LocalRuntime,
  ) {
    this.#service = service
    this.#credentialsOf = credentialsOf
    this.#runtime = runtime
    this.verifier = {
      consume: async (request) => {
        const credentials = this.#credentialsOf(request.evidence)
        const binding = bindingOf(credentials)
        if (binding === undefined) return { kind: 'rejected', reason: 'step-up: no local session or token' }
        const result = await this.#service.consume({
          token: request.token,
          purpose: request.purpose,
          accountId: request.accountId,
          ...binding,
        })
        if (result.kind === 'rejected') return { kind: 'rejected', reason: `step-up: ${result.reason}` }
        if (result.kind === 'unavailable') return { kind: 'unavailable', reason: `step-up: ${result.reason}` }
        this.#runtime.emit(
          'step_up.consumed',
          defined({
            accountId: request.accountId,
            purpose: request.purpose,
            sessionHandle: credentials.sessionHandle,
          }),
        )
        return { kind: 'consumed' }
      },
    }
  }

  /**
   * Issues a credential for `purpose` to the request whose evidence is given (after the application made
   * the user prove presence again, e.g. by re-entering the password). Throws `step-up.invalid_input` when
   * the request came with no local session or token.
   */
  async issue(request: {
    readonly accountId: string
    readonly purpose: string
    readonly evidence: readonly AuthenticationEvidence[]
    readonly authenticatedAt?: Date
  }): Promise<StepUpCredential> {
    const credentials = this.#credentialsOf(request.evidence)
    const binding = bindingOf(credentials)
    if (binding === undefined) {
      throw invalidStepUpInput('the request has no local session or token to bind the credential to')
    }
    const credential = await this.#service.issue({
      accountId: request.accountId,
      purpose: request.purpose,
      ...binding,
      ...(request.authenticatedAt === undefined ? {} : { authenticatedAt: request.authenticatedAt }),
    })
    this.#runtime.emit(
      'step_up.issued',
      defined({
        accountId: request.accountId,
        purpose: request.purpose,
        sessionHandle: credentials.sessionHandle,
      }),
    )
    return credential
  }
}
