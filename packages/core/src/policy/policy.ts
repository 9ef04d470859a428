import { ConfigurationError } from '../errors/index.js'

const INVALID = 'policy.invalid'

/** A policy that authenticates: it names which mechanisms (alone or together) a route accepts. */
export type AuthenticatingPolicy =
  /** `names` empty: any one mechanism that participates by default. */
  | { readonly kind: 'required'; readonly names: readonly string[] }
  | { readonly kind: 'anyOf'; readonly names: readonly string[] }
  | { readonly kind: 'allOf'; readonly names: readonly string[] }
  | { readonly kind: 'atLeast'; readonly k: number; readonly names: readonly string[] }

/**
 * A route's `auth` policy:
 * - authenticating policies (`required`, `anyOf`, `allOf`, `atLeast`);
 * - `optional(p)`: `p`, or anonymous when no credential at all was presented;
 * - `anonymous()`: a public route, no credential work, documented as open;
 * - `exclude()`: outside Portcullis entirely: no credential work, not documented.
 */
export type AuthPolicy = AuthenticatingPolicy | OptionalPolicy | AnonymousPolicy | ExcludedPolicy

export interface OptionalPolicy {
  readonly kind: 'optional'
  readonly policy: AuthenticatingPolicy
}
export interface AnonymousPolicy {
  readonly kind: 'anonymous'
}
export interface ExcludedPolicy {
  readonly kind: 'exclude'
}

function mechanismNames(helper: string, names: readonly unknown[], allowEmpty: boolean): readonly string[] {
  if (names.length === 0 && !allowEmpty)
    throw new ConfigurationError(INVALID, `${helper} needs mechanism names`)
  const seen = new Set<string>()
  for (const name of names) {
    if (typeof name !== 'string' || name.trim() === '' || name.trim() !== name) {
      throw new ConfigurationError(INVALID, `${helper} mechanism names must be non-blank trimmed strings`)
    }
    if (seen.has(name)) throw new ConfigurationError(INVALID, `${helper} names "${name}" twice`)
    seen.add(name)
  }
  return Object.freeze([...seen])
}

/**
 * `required()` accepts any mechanism that participates by default; `required('a', 'b')` accepts any one of
 * the named mechanisms (same as `anyOf`).
 */
export function required(...names: readonly string[]): AuthenticatingPolicy {
  return Object.freeze({ kind: 'required' as const, names: mechanismNames('required', names, true) })
}

/** Any one of the named mechanisms. */
export function anyOf(...names: readonly string[]): AuthenticatingPolicy {
  return Object.freeze({ kind: 'anyOf' as const, names: mechanismNames('anyOf', names, false) })
}

/** Every named mechanism, all agreeing on one principal. */
export function allOf(...names: readonly string[]): AuthenticatingPolicy {
  return Object.freeze({ kind: 'allOf' as const, names: mechanismNames('allOf', names, false) })
}

/** At least `k` of the named mechanisms (1 <= k <= names). */
export function atLeast(k: number, ...names: readonly string[]): AuthenticatingPolicy {
  const list = mechanismNames('atLeast', names, false)
  if (!Number.isInteger(k) || k < 1 || k > list.length) {
    throw new ConfigurationError(INVALID, `atLeast needs 1 <= k <= ${list.length}`)
  }
  return Object.freeze({ kind: 'atLeast' as const, k, names: list })
}

/**
 * `policy` when a credential is presented; anonymous when nothing at all was presented. A presented but
 * invalid credential is still 401: it is never downgraded to absent.
 */
export function optional(policy: AuthenticatingPolicy): OptionalPolicy {
  const kind = (policy as { kind?: unknown } | null)?.kind
  if (kind !== 'required' && kind !== 'anyOf' && kind !== 'allOf' && kind !== 'atLeast') {
    throw new ConfigurationError(INVALID, 'optional() wraps required, anyOf, allOf or atLeast only')
  }
  return Object.freeze({ kind: 'optional' as const, policy })
}

const ANONYMOUS: AnonymousPolicy = Object.freeze({ kind: 'anonymous' as const })
const EXCLUDE: ExcludedPolicy = Object.freeze({ kind: 'exclude' as const })

/** A public route: anonymous principal, no credential is read, documented with `security: []`. */
export function anonymous(): AnonymousPolicy {
  return ANONYMOUS
}

/** Excluded from Portcullis: no credential is read and the route is left out of generated documents. */
export function exclude(): ExcludedPolicy {
  return EXCLUDE
}

/** True for the helper results above (used by adapters to validate route options). */
export function isAuthPolicy(value: unknown): value is AuthPolicy {
  const kind = (value as { kind?: unknown } | null)?.kind
  return (
    typeof value === 'object' &&
    value !== null &&
    (kind === 'required' ||
      kind === 'anyOf' ||
      kind === 'allOf' ||
      kind === 'atLeast' ||
      kind === 'optional' ||
      kind === 'anonymous' ||
      kind === 'exclude')
  )
}
