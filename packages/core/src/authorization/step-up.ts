import type { AuthenticationEvidence, Principal } from '../authentication/index.js'
import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import type { UserAuthenticationChallenge } from './guard.js'

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
  /** What a bearer client should re-authorize with when it has no credential (RFC 9470 challenge). */
  readonly challenge?: UserAuthenticationChallenge
}

export interface StepUpGuardOptions {
  /**
   * Sent to bearer-authenticated clients refused for lack of a credential, in the RFC 9470
   * `WWW-Authenticate: Bearer error="insufficient_user_authentication"` challenge (`acr_values`, `max_age`).
   * Browser clients get a step-up credential from an OAuth reauthentication instead.
   */
  readonly challenge?: UserAuthenticationChallenge
}

const CHALLENGE_OPTIONS: OptionsShape<UserAuthenticationChallenge> = {
  acrValues: {
    kind: 'array',
    elements: {
      kind: 'string',
      check: (value) =>
        /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/.test(value as string) ? undefined : 'must be an acr value',
    },
    code: 'authorization.invalid_guard',
  },
  maxAge: {
    kind: 'number',
    check: (value) =>
      Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer',
    code: 'authorization.invalid_guard',
  },
}

const STEP_UP_GUARD_OPTIONS: OptionsShape<StepUpGuardOptions> = {
  challenge: { kind: 'object', shape: CHALLENGE_OPTIONS, code: 'authorization.invalid_guard' },
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

/**
 * A route guard consuming a one-use step-up credential for `purpose` (see `StepUpGuard`). The credential
 * travels in the step-up header or, after a browser reauthentication, in the step-up cookie of `purpose`.
 */
export function requiresStepUp(purpose: string, options: StepUpGuardOptions = {}): StepUpGuard {
  if (typeof purpose !== 'string' || !PURPOSE.test(purpose)) {
    throw new ConfigurationError(
      'authorization.invalid_guard',
      'requiresStepUp purpose must be 1-128 characters of letters, digits, ".", "_", ":" or "-"',
    )
  }
  readOptions(options, 'requiresStepUp', STEP_UP_GUARD_OPTIONS)
  const given = options.challenge
  const challenge =
    given === undefined
      ? undefined
      : Object.freeze({
          ...(given.acrValues === undefined ? {} : { acrValues: Object.freeze([...given.acrValues]) }),
          ...(given.maxAge === undefined ? {} : { maxAge: given.maxAge }),
        })
  return Object.freeze({
    kind: 'step-up' as const,
    key: `stepUp(${purpose})`,
    purpose,
    ...(challenge === undefined ? {} : { challenge }),
  })
}
