export type { AuthenticationResult } from './authenticate.js'
export { authenticateAll } from './authenticate.js'
export type { PolicyEvaluatorOptions, PolicyOutcome, PolicyRejectionCode } from './evaluator.js'
export { PolicyEvaluator, RequestEvaluation } from './evaluator.js'
export type {
  AnonymousPolicy,
  AuthenticatingPolicy,
  AuthPolicy,
  ExcludedPolicy,
  OptionalPolicy,
} from './policy.js'
export { allOf, anonymous, anyOf, atLeast, exclude, isAuthPolicy, optional, required } from './policy.js'
export type { CompiledPolicy } from './registry.js'
export { MAX_POLICY_ALTERNATIVES, MechanismRegistry } from './registry.js'
