import type {
  AuthenticationChallenge,
  AuthenticationEvidence,
  AuthenticationMechanism,
  AuthenticationOutcome,
  CredentialSource,
  Principal,
} from '../authentication/index.js'
import type { MechanismRegistry } from './registry.js'

/**
 * The policy-independent result of running every configured mechanism once on a request:
 * - `anonymous`: nothing was presented;
 * - `authenticated`: every presented credential verified and all agree on one principal;
 * - `invalid`: some presented credential was rejected, or the credentials name different principals;
 * - `unavailable`: some mechanism could not decide (beats `invalid`).
 * `reasons` are for logs only.
 */
export type AuthenticationResult =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'authenticated'
      readonly principal: Principal
      readonly evidence: readonly AuthenticationEvidence[]
      /** Names of the mechanisms whose credential verified. */
      readonly mechanisms: ReadonlySet<string>
    }
  | {
      readonly kind: 'invalid'
      readonly reasons: readonly string[]
      /** The first refused credential's challenge (a DPoP error or nonce), for `WWW-Authenticate`. */
      readonly challenge?: AuthenticationChallenge
    }
  | { readonly kind: 'unavailable'; readonly reasons: readonly string[]; readonly retryAfterSeconds?: number }

type Authenticated = Extract<AuthenticationOutcome, { kind: 'authenticated' }>

const isPrincipal = (value: unknown): value is Principal => {
  const principal = value as Partial<Principal> | null
  return (
    typeof principal === 'object' &&
    principal !== null &&
    typeof principal.id === 'string' &&
    principal.id.length > 0 &&
    (principal.kind === 'user' || principal.kind === 'service')
  )
}

/** A mechanism bug (malformed outcome) or a throw is a server-side fault: `unavailable`, never a grant. */
function checked(name: string, outcome: unknown): AuthenticationOutcome {
  const kind = (outcome as { kind?: unknown } | null)?.kind
  if (kind === 'none' || kind === 'invalid' || kind === 'unavailable') return outcome as AuthenticationOutcome
  if (kind === 'authenticated') {
    const value = outcome as { principal?: unknown; evidence?: unknown }
    if (isPrincipal(value.principal) && typeof value.evidence === 'object' && value.evidence !== null) {
      return outcome as AuthenticationOutcome
    }
  }
  return { kind: 'unavailable', reason: `${name}: malformed outcome` }
}

const ANONYMOUS: AuthenticationResult = Object.freeze({ kind: 'anonymous' })

const threw = (name: string): AuthenticationOutcome => ({ kind: 'unavailable', reason: `${name}: threw` })

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function'

/**
 * Extracts every configured credential slot exactly once (each mechanism's `authenticate`, concurrently),
 * whatever the route policy names, then classifies the whole request. Synchronous when every mechanism
 * answered synchronously (nothing presented, or a cached verdict). Never throws, never rejects.
 */
export function authenticateAll(
  registry: MechanismRegistry,
  source: CredentialSource,
): AuthenticationResult | Promise<AuthenticationResult> {
  const mechanisms = registry.mechanisms
  const outcomes: AuthenticationOutcome[] = new Array(mechanisms.length)
  let pending: Promise<void>[] | undefined
  for (let index = 0; index < mechanisms.length; index += 1) {
    const mechanism = mechanisms[index] as AuthenticationMechanism
    let answer: unknown
    try {
      answer = mechanism.authenticate(source)
    } catch {
      outcomes[index] = threw(mechanism.name)
      continue
    }
    if (!isThenable(answer)) {
      outcomes[index] = checked(mechanism.name, answer)
      continue
    }
    pending ??= []
    pending.push(
      Promise.resolve(answer).then(
        (outcome) => {
          outcomes[index] = checked(mechanism.name, outcome)
        },
        () => {
          outcomes[index] = threw(mechanism.name)
        },
      ),
    )
  }
  if (pending === undefined) return classify(mechanisms, outcomes)
  const settled = pending.length === 1 ? (pending[0] as Promise<void>) : Promise.all(pending)
  return settled.then(() => classify(mechanisms, outcomes))
}

function classify(
  mechanisms: readonly AuthenticationMechanism[],
  outcomes: readonly AuthenticationOutcome[],
): AuthenticationResult {
  // One pass: unavailable beats invalid beats everything else. Lists are made only when needed: the
  // common request has one verified credential and nothing else.
  let unavailable: string[] | undefined
  let invalid: string[] | undefined
  let challenge: AuthenticationChallenge | undefined
  let verified: Authenticated[] | undefined
  let first: Authenticated | undefined
  let firstName = ''
  let retryAfterSeconds: number | undefined
  for (let index = 0; index < outcomes.length; index += 1) {
    const outcome = outcomes[index] as AuthenticationOutcome
    if (outcome.kind === 'unavailable') {
      unavailable ??= []
      unavailable.push(outcome.reason)
      const seconds = outcome.retryAfterSeconds
      if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) {
        retryAfterSeconds = Math.max(retryAfterSeconds ?? 0, Math.ceil(seconds))
      }
    } else if (outcome.kind === 'invalid') {
      invalid ??= []
      invalid.push(outcome.reason)
      challenge ??= outcome.challenge
    } else if (outcome.kind === 'authenticated') {
      if (first === undefined) {
        first = outcome
        firstName = (mechanisms[index] as AuthenticationMechanism).name
      } else {
        verified ??= [first]
        verified.push(outcome)
      }
    }
  }
  if (unavailable !== undefined) {
    return retryAfterSeconds === undefined
      ? { kind: 'unavailable', reasons: unavailable }
      : { kind: 'unavailable', reasons: unavailable, retryAfterSeconds }
  }
  if (invalid !== undefined) {
    return challenge === undefined
      ? { kind: 'invalid', reasons: invalid }
      : { kind: 'invalid', reasons: invalid, challenge }
  }
  if (first === undefined) return ANONYMOUS
  const principal = first.principal
  if (verified === undefined) {
    return {
      kind: 'authenticated',
      principal,
      evidence: Object.freeze([first.evidence]),
      mechanisms: new Set([firstName]),
    }
  }
  // An impersonation and the user's own credential are two different actors, even for one account.
  const disagree = verified.some(
    (item) =>
      item.principal.id !== principal.id ||
      item.principal.kind !== principal.kind ||
      item.principal.impersonator?.impersonationId !== principal.impersonator?.impersonationId,
  )
  if (disagree) return { kind: 'invalid', reasons: ['authentication.principal_mismatch'] }
  const names = new Set<string>()
  for (let index = 0; index < outcomes.length; index += 1) {
    if ((outcomes[index] as AuthenticationOutcome).kind === 'authenticated') {
      names.add((mechanisms[index] as AuthenticationMechanism).name)
    }
  }
  return {
    kind: 'authenticated',
    principal,
    evidence: Object.freeze(verified.map((item) => item.evidence)),
    mechanisms: names,
  }
}
