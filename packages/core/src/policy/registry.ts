import type { AuthenticationMechanism } from '../authentication/index.js'
import { ConfigurationError } from '../errors/index.js'
import type { AuthenticatingPolicy, AuthPolicy } from './policy.js'

/** Upper bound on alternatives a policy may expand to (keeps OpenAPI requirement lists readable). */
export const MAX_POLICY_ALTERNATIVES = 32

/**
 * A policy resolved against the registered mechanisms at startup.
 * `alternatives` lists AND-groups of mechanism names: the policy is satisfied when every name of some
 * group verified. Empty for `anonymous()` / `exclude()`.
 */
export interface CompiledPolicy {
  readonly policy: AuthPolicy
  /** False for `anonymous()` and `exclude()`: no credential is read at all. */
  readonly authenticates: boolean
  readonly optional: boolean
  readonly excluded: boolean
  readonly alternatives: readonly (readonly string[])[]
}

function combinations(names: readonly string[], k: number): string[][] {
  if (k === 0) return [[]]
  const result: string[][] = []
  names.forEach((name, index) => {
    if (names.length - index < k) return
    for (const rest of combinations(names.slice(index + 1), k - 1)) result.push([name, ...rest])
  })
  return result
}

const freezeGroups = (groups: readonly (readonly string[])[]) =>
  Object.freeze(groups.map((group) => Object.freeze([...group])))

/**
 * The mechanisms configured for an application. Registering a mechanism makes it available; route policy
 * decides where it is accepted. Names are unique; compiling a policy that names an unknown mechanism is a
 * startup error (`policy.unknown_mechanism`).
 */
export class MechanismRegistry {
  readonly mechanisms: readonly AuthenticationMechanism[]
  readonly #byName: ReadonlyMap<string, AuthenticationMechanism>
  readonly #compiled = new WeakMap<AuthPolicy, CompiledPolicy>()

  constructor(mechanisms: readonly AuthenticationMechanism[]) {
    const byName = new Map<string, AuthenticationMechanism>()
    for (const mechanism of mechanisms) {
      const name = (mechanism as { name?: unknown } | null)?.name
      if (typeof name !== 'string' || name.trim() === '' || name.trim() !== name) {
        throw new ConfigurationError(
          'policy.invalid_mechanism',
          'mechanism names must be non-blank trimmed strings',
        )
      }
      if (typeof mechanism.authenticate !== 'function' || typeof mechanism.securityScheme !== 'object') {
        throw new ConfigurationError('policy.invalid_mechanism', `mechanism "${name}" is incomplete`)
      }
      if (byName.has(name))
        throw new ConfigurationError('policy.duplicate_mechanism', `mechanism "${name}" twice`)
      byName.set(name, mechanism)
    }
    this.mechanisms = Object.freeze([...mechanisms])
    this.#byName = byName
  }

  get(name: string): AuthenticationMechanism | undefined {
    return this.#byName.get(name)
  }

  /** Mechanisms `required()` with no names accepts (those whose `default` is not false). */
  get defaults(): readonly string[] {
    return this.mechanisms
      .filter((mechanism) => mechanism.default !== false)
      .map((mechanism) => mechanism.name)
  }

  /** Resolves a policy; the same policy object always yields the same compiled object. */
  compile(policy: AuthPolicy): CompiledPolicy {
    const cached = this.#compiled.get(policy)
    if (cached !== undefined) return cached
    const compiled = Object.freeze(this.#compile(policy))
    this.#compiled.set(policy, compiled)
    return compiled
  }

  #compile(policy: AuthPolicy): CompiledPolicy {
    switch (policy.kind) {
      case 'anonymous':
      case 'exclude':
        return {
          policy,
          authenticates: false,
          optional: false,
          excluded: policy.kind === 'exclude',
          alternatives: Object.freeze([]),
        }
      case 'optional': {
        const inner = (policy.policy as { kind?: unknown } | null)?.kind
        if (inner === 'optional' || inner === 'anonymous' || inner === 'exclude' || inner === undefined) {
          throw new ConfigurationError('policy.invalid', 'optional() wraps an authenticating policy')
        }
        return { ...this.#compile(policy.policy), policy, optional: true }
      }
      case 'required':
      case 'anyOf':
      case 'allOf':
      case 'atLeast':
        return {
          policy,
          authenticates: true,
          optional: false,
          excluded: false,
          alternatives: this.#groups(policy),
        }
      default:
        throw new ConfigurationError('policy.invalid', 'route policy must come from a policy helper')
    }
  }

  #groups(policy: AuthenticatingPolicy): readonly (readonly string[])[] {
    const valid =
      Array.isArray(policy.names) &&
      (policy.kind !== 'atLeast' ||
        (Number.isInteger(policy.k) && policy.k >= 1 && policy.k <= policy.names.length))
    if (!valid) throw new ConfigurationError('policy.invalid', 'route policy must come from a policy helper')
    for (const name of policy.names) {
      if (!this.#byName.has(name)) {
        throw new ConfigurationError(
          'policy.unknown_mechanism',
          `policy names unregistered mechanism "${name}"`,
        )
      }
    }
    // Registry order keeps generated documents stable whatever order the policy listed names in.
    const ordered = (names: readonly string[]) =>
      this.mechanisms.map((m) => m.name).filter((n) => names.includes(n))
    let groups: string[][]
    if (policy.kind === 'required' && policy.names.length === 0) {
      const defaults = this.defaults
      if (defaults.length === 0) {
        throw new ConfigurationError('policy.no_default_mechanism', 'required() needs a default mechanism')
      }
      groups = defaults.map((name) => [name])
    } else if (policy.kind === 'required' || policy.kind === 'anyOf') {
      groups = ordered(policy.names).map((name) => [name])
    } else if (policy.kind === 'allOf') {
      groups = [ordered(policy.names)]
    } else {
      groups = combinations(ordered(policy.names), policy.k)
    }
    if (groups.length > MAX_POLICY_ALTERNATIVES) {
      throw new ConfigurationError(
        'policy.too_many_alternatives',
        `policy expands to ${groups.length} alternatives`,
      )
    }
    return freezeGroups(groups)
  }
}
