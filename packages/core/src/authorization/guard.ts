import { ConfigurationError } from '../errors/index.js'
import type { GuardContext } from './context.js'
import { configuredName } from './names.js'

/**
 * Why a guard denied:
 * - `unauthenticated`: the caller is anonymous (401);
 * - `forbidden`: authenticated but not allowed (403);
 * - `step-up-required`: a fresh one-use step-up credential is missing or was refused (401);
 * - `insufficient-user-authentication`: the credential's authentication is too weak or too old for the
 *   route (`acrAtLeast`, `authenticatedWithin`); 401 with an RFC 9470 challenge for bearer clients;
 * - `unavailable`: the step-up service could not decide (503).
 */
export type GuardDenial =
  | 'unauthenticated'
  | 'forbidden'
  | 'step-up-required'
  | 'insufficient-user-authentication'
  | 'unavailable'

/**
 * What a client must do to satisfy a user-authentication requirement (RFC 9470): authenticate with one of
 * `acrValues`, and/or no longer than `maxAge` seconds ago. Rendered in a `WWW-Authenticate` challenge.
 */
export interface UserAuthenticationChallenge {
  readonly acrValues?: readonly string[]
  readonly maxAge?: number
}

/** One step of a denial path: a combinator name and child index, or a guard key. */
export type GuardPathSegment = string | number

export type GuardDecision =
  | { readonly granted: true }
  | {
      readonly granted: false
      readonly denial: GuardDenial
      /** Internal reason (`authorization.missing_role`, ...): for logs only, never rendered. */
      readonly code: string
      /** Where in a composition the denial came from: for logs only. */
      readonly path: readonly GuardPathSegment[]
      readonly retryAfterSeconds?: number
      /** What would satisfy the route (step-up and user-authentication denials), for RFC 9470 challenges. */
      readonly challenge?: UserAuthenticationChallenge
    }

/**
 * A pure, synchronous check over the security context and the route's path parameters. Guards never
 * perform I/O: everything they need is in the server-resolved snapshot.
 */
export interface Guard {
  readonly kind: 'guard'
  /** Canonical description, e.g. `role(admin)`; duplicates in one composition are rejected. */
  readonly key: string
  /** Path parameters the guard reads; registering it on a route without them is a startup error. */
  readonly parameters: readonly string[]
  check(context: GuardContext): GuardDecision
}

export const GRANTED: GuardDecision = Object.freeze({ granted: true })

export function denied(denial: GuardDenial, code: string, path: readonly GuardPathSegment[]): GuardDecision {
  return { granted: false, denial, code, path }
}

/** Prefixes a child's denial path with the combinator segment. */
export function within(decision: GuardDecision, ...segments: GuardPathSegment[]): GuardDecision {
  return decision.granted ? decision : { ...decision, path: [...segments, ...decision.path] }
}

/** Builds a leaf guard: anonymous callers are denied with `unauthenticated`, others by `allows`. */
export function leafGuard(
  key: string,
  code: string,
  parameters: readonly string[],
  allows: (context: GuardContext) => boolean,
): Guard {
  const anonymous = denied('unauthenticated', 'authorization.authentication_required', [key])
  const forbidden = denied('forbidden', code, [key])
  return Object.freeze({
    kind: 'guard' as const,
    key,
    parameters: Object.freeze([...parameters]),
    check(context: GuardContext): GuardDecision {
      if (context.principal === null) return anonymous
      return allows(context) ? GRANTED : forbidden
    },
  })
}

/**
 * An application-defined guard. `allows` must be pure and synchronous (it sees the principal, the
 * snapshot, the evidence and the path parameters); anonymous callers never reach it (401).
 */
export function guard(name: string, allows: (context: GuardContext) => boolean): Guard {
  const checked = configuredName('authorization.invalid_guard', 'guard name', name)
  if (typeof allows !== 'function') {
    throw new ConfigurationError('authorization.invalid_guard', 'guard() needs a predicate function')
  }
  return leafGuard(`custom(${checked})`, `authorization.denied_by_${checked}`, [], allows)
}
