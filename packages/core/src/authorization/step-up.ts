import type { AuthenticationEvidence, Principal } from '../authentication/index.js'
import { ConfigurationError } from '../errors/index.js'

/** What the guard asks the step-up service to consume. */
export interface StepUpVerificationRequest {
  /** The presented one-use credential, exactly as carried on the request. */
  readonly token: string
  readonly purpose: string
  /** `principal.id` of the authenticated caller. */
  readonly accountId: string
  readonly principal: Principal
  /** Evidence of the request's credentials (session or token binding, security epoch claims). */
  readonly evidence: readonly AuthenticationEvidence[]
}

export type StepUpVerdict =
  | { readonly kind: 'consumed' }
  /** Missing, unknown, already consumed, expired, or bound to another account, purpose, epoch or session. */
  | { readonly kind: 'rejected'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

/**
 * The port `requiresStepUp` consumes one-use step-up credentials through. `consume` must be atomic: of
 * concurrent calls with the same token at most one answers `consumed`. Throwing counts as `unavailable`.
 */
export interface StepUpVerifier {
  consume(request: StepUpVerificationRequest): Promise<StepUpVerdict>
}

/**
 * A route guard requiring a fresh step-up credential for `purpose`. It is the only asynchronous guard: it
 * must be listed directly in a route's `guards` (never inside a combinator), at most once per route, and
 * it runs once, after every synchronous guard granted, so a denied request never burns the credential.
 */
export interface StepUpGuard {
  readonly kind: 'step-up'
  readonly key: string
  readonly purpose: string
}

/** What a step-up credential is bound to besides account and purpose, derived from the request. */
export interface StepUpRequestBinding {
  readonly securityEpoch: number
  readonly sessionBinding: string
}

/** Any service consuming credentials bound to account, purpose, epoch and session (the step-up service). */
export interface StepUpConsumer {
  consume(
    request: StepUpRequestBinding & {
      readonly token: string
      readonly purpose: string
      readonly accountId: string
    },
  ): Promise<StepUpVerdict>
}

/**
 * Adapts a step-up service to the guard port. `bind` derives the security epoch and session binding from
 * the request's principal and evidence; answering `undefined` (no session to bind to) refuses the request
 * without consuming anything.
 */
export function stepUpVerifierFor(
  service: StepUpConsumer,
  bind: (request: StepUpVerificationRequest) => StepUpRequestBinding | undefined,
): StepUpVerifier {
  return {
    async consume(request) {
      const binding = bind(request)
      if (binding === undefined)
        return { kind: 'rejected', reason: 'step-up: request has no session binding' }
      return service.consume({
        token: request.token,
        purpose: request.purpose,
        accountId: request.accountId,
        securityEpoch: binding.securityEpoch,
        sessionBinding: binding.sessionBinding,
      })
    },
  }
}

const PURPOSE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

export function requiresStepUp(purpose: string): StepUpGuard {
  if (typeof purpose !== 'string' || !PURPOSE.test(purpose)) {
    throw new ConfigurationError(
      'authorization.invalid_guard',
      'requiresStepUp purpose must be 1-128 characters of letters, digits, ".", "_", ":" or "-"',
    )
  }
  return Object.freeze({ kind: 'step-up' as const, key: `stepUp(${purpose})`, purpose })
}
