import type {
  AuthenticationChallenge,
  AuthenticationMechanism,
  CredentialSource,
} from '../authentication/index.js'
import {
  type AuthorizationResolver,
  type AuthorizationResult,
  anonymousContext,
  resolveAuthorization,
  type SecurityContext,
} from '../authorization/index.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { type AuthenticationResult, authenticateAll } from './authenticate.js'
import type { AuthPolicy } from './policy.js'
import { type CompiledPolicy, MechanismRegistry } from './registry.js'

/** Stable codes of a policy rejection; adapters render them (401 / 503). */
export type PolicyRejectionCode = 'authentication.required' | 'authentication.unavailable'

export type PolicyOutcome =
  | { readonly kind: 'granted'; readonly context: SecurityContext }
  | {
      readonly kind: 'rejected'
      readonly code: PolicyRejectionCode
      /** Internal reason for logs and metrics; never rendered to clients. */
      readonly reason: string
      readonly retryAfterSeconds?: number
      /** What a refused credential asks of the client (a DPoP error or nonce), for `WWW-Authenticate`. */
      readonly challenge?: AuthenticationChallenge
    }

const required = (reason: string, challenge?: AuthenticationChallenge): PolicyOutcome =>
  challenge === undefined
    ? { kind: 'rejected', code: 'authentication.required', reason }
    : { kind: 'rejected', code: 'authentication.required', reason, challenge }

function unavailable(reason: string, retryAfterSeconds?: number): PolicyOutcome {
  return retryAfterSeconds === undefined
    ? { kind: 'rejected', code: 'authentication.unavailable', reason }
    : { kind: 'rejected', code: 'authentication.unavailable', reason, retryAfterSeconds }
}

/** Some alternative of the policy is fully verified. Plain loops: this runs on every authenticated request. */
function satisfied(policy: CompiledPolicy, mechanisms: ReadonlySet<string>): boolean {
  for (const group of policy.alternatives) {
    let all = true
    for (const name of group) {
      if (!mechanisms.has(name)) {
        all = false
        break
      }
    }
    if (all) return true
  }
  return false
}

const GRANTED_ANONYMOUS: PolicyOutcome = Object.freeze({ kind: 'granted', context: anonymousContext })

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise

/**
 * The per-request half of evaluation. Authentication (every mechanism once) and authorization (the
 * resolver once) are policy-independent, so they are memoized: evaluating several policies on one request
 * (nested routes, an in-process MCP read) never repeats them. Settles synchronously when every mechanism
 * and the resolver answered synchronously, so adapters can skip a turn of the event loop.
 */
export class RequestEvaluation {
  readonly #evaluator: PolicyEvaluator
  readonly #source: CredentialSource
  #authentication: AuthenticationResult | Promise<AuthenticationResult> | undefined
  #authorization: AuthorizationResult | Promise<AuthorizationResult> | undefined

  constructor(evaluator: PolicyEvaluator, source: CredentialSource) {
    this.#evaluator = evaluator
    this.#source = source
  }

  /** Evaluates one compiled policy. Never throws, never rejects. */
  evaluate(policy: CompiledPolicy): PolicyOutcome | Promise<PolicyOutcome> {
    if (!policy.authenticates) return GRANTED_ANONYMOUS
    this.#authentication ??= authenticateAll(this.#evaluator.registry, this.#source)
    const authentication = this.#authentication
    if (!isPromise(authentication)) return this.#authenticated(policy, authentication)
    return authentication.then((result) => {
      this.#authentication = result
      return this.#authenticated(policy, result)
    })
  }

  #authenticated(
    policy: CompiledPolicy,
    result: AuthenticationResult,
  ): PolicyOutcome | Promise<PolicyOutcome> {
    switch (result.kind) {
      case 'unavailable':
        return unavailable(result.reasons.join('; '), result.retryAfterSeconds)
      case 'invalid':
        return required(result.reasons.join('; '), result.challenge)
      case 'anonymous':
        return policy.optional ? GRANTED_ANONYMOUS : required('authentication.no_credentials')
    }
    if (!satisfied(policy, result.mechanisms)) return required('authentication.policy_unsatisfied')
    this.#authorization ??= resolveAuthorization(this.#evaluator.authorizationResolver, {
      principal: result.principal,
      evidence: result.evidence,
    })
    const authorization = this.#authorization
    if (!isPromise(authorization)) return granted(result, authorization)
    return authorization.then((settled) => {
      this.#authorization = settled
      return granted(result, settled)
    })
  }
}

function granted(
  result: Extract<AuthenticationResult, { kind: 'authenticated' }>,
  authorization: AuthorizationResult,
): PolicyOutcome {
  if (authorization.kind === 'unavailable') return unavailable(authorization.reason)
  if (authorization.kind === 'rejected') return required(authorization.reason)
  return {
    kind: 'granted',
    context: Object.freeze({
      principal: result.principal,
      snapshot: authorization.snapshot,
      evidence: result.evidence,
    }),
  }
}

export interface PolicyEvaluatorOptions {
  readonly mechanisms: readonly AuthenticationMechanism[]
  /** Loads grants for the verified principal, once per authenticated request. Default: empty snapshot. */
  readonly authorizationResolver?: AuthorizationResolver | undefined
}

const EVALUATOR_OPTIONS: OptionsShape<PolicyEvaluatorOptions> = {
  mechanisms: { required: true, kind: 'array' },
  authorizationResolver: { kind: 'function' },
}

/**
 * Route policy evaluation over the registered mechanisms:
 * 1. every configured mechanism authenticates the request once, whatever the policy names;
 * 2. any `unavailable` -> 503; else any `invalid` (never downgraded to absent) -> 401;
 * 3. all verified credentials must name one principal, else 401;
 * 4. some alternative of the policy must be fully verified, else 401 (`optional`: anonymous when nothing
 *    at all was presented);
 * 5. the authorization resolver runs once; its snapshot is narrowed by every credential's restrictions.
 */
export class PolicyEvaluator {
  readonly registry: MechanismRegistry
  readonly authorizationResolver: AuthorizationResolver | undefined

  constructor(options: PolicyEvaluatorOptions) {
    readOptions(options, 'PolicyEvaluator', EVALUATOR_OPTIONS)
    this.registry = new MechanismRegistry(options.mechanisms)
    this.authorizationResolver = options.authorizationResolver
  }

  /** Startup: resolves the policy against the registry (unknown mechanism names throw). */
  compile(policy: AuthPolicy): CompiledPolicy {
    return this.registry.compile(policy)
  }

  /** Starts the evaluation of one request. */
  begin(source: CredentialSource): RequestEvaluation {
    return new RequestEvaluation(this, source)
  }
}
