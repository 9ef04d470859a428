import { ConfigurationError } from '../errors/index.js'
import type { GuardContext } from './context.js'
import { denied, GRANTED, type Guard, type GuardDecision, within } from './guard.js'

const INVALID = 'authorization.invalid_composition'

/** Validates children: at least one, each a synchronous guard, no child twice (same object or key). */
function children(operator: string, guards: readonly unknown[]): readonly Guard[] {
  if (guards.length === 0) throw new ConfigurationError(INVALID, `${operator} needs at least one guard`)
  const keys = new Set<string>()
  const objects = new Set<unknown>()
  for (const child of guards) {
    const kind = (child as { kind?: unknown } | null)?.kind
    if (kind === 'step-up') {
      throw new ConfigurationError(
        INVALID,
        `requiresStepUp cannot be nested in ${operator}; list it on the route`,
      )
    }
    if (kind !== 'guard') throw new ConfigurationError(INVALID, `${operator} children must be guards`)
    const typed = child as Guard
    if (objects.has(child) || keys.has(typed.key)) {
      throw new ConfigurationError(INVALID, `${operator} lists ${typed.key} twice`)
    }
    objects.add(child)
    keys.add(typed.key)
  }
  return Object.freeze([...(guards as readonly Guard[])])
}

function composite(
  operator: string,
  list: readonly Guard[],
  decide: (results: readonly GuardDecision[]) => GuardDecision,
  label = operator,
): Guard {
  return Object.freeze({
    kind: 'guard' as const,
    key: `${label}(${list.map((child) => child.key).join(',')})`,
    parameters: Object.freeze([...new Set(list.flatMap((child) => child.parameters))]),
    check(context: GuardContext): GuardDecision {
      return decide(list.map((child, index) => within(child.check(context), operator, index)))
    },
  })
}

const firstDenial = (results: readonly GuardDecision[]): GuardDecision =>
  results.find((result) => !result.granted) ?? GRANTED

const countGranted = (results: readonly GuardDecision[]): number =>
  results.reduce((count, result) => (result.granted ? count + 1 : count), 0)

/** Grants when every child grants; otherwise the first denial. */
export function requiresAllOf(...guards: readonly Guard[]): Guard {
  return composite('allOf', children('requiresAllOf', guards), firstDenial)
}

/** Grants when at least one child grants; otherwise the first denial. */
export function requiresAnyOf(...guards: readonly Guard[]): Guard {
  return composite('anyOf', children('requiresAnyOf', guards), (results) =>
    countGranted(results) > 0 ? GRANTED : firstDenial(results),
  )
}

/** Grants when exactly one child grants; none -> the first denial; several -> 403. */
export function requiresOneOf(...guards: readonly Guard[]): Guard {
  return composite('oneOf', children('requiresOneOf', guards), (results) => {
    const granted = countGranted(results)
    if (granted === 1) return GRANTED
    return granted === 0
      ? firstDenial(results)
      : denied('forbidden', 'authorization.one_of_mismatch', ['oneOf'])
  })
}

/** Grants when at least `k` children grant (1 <= k <= number of children). */
export function requiresAtLeast(k: number, ...guards: readonly Guard[]): Guard {
  const list = children('requiresAtLeast', guards)
  if (!Number.isInteger(k) || k < 1 || k > list.length) {
    throw new ConfigurationError(INVALID, `requiresAtLeast needs 1 <= k <= ${list.length}`)
  }
  return composite(
    'atLeast',
    list,
    (results) => (countGranted(results) >= k ? GRANTED : firstDenial(results)),
    `atLeast${k}`,
  )
}
