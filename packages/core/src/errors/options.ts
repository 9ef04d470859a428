import { ConfigurationError } from './portcullis-error.js'

/**
 * Stable codes of option-object mistakes. Every public factory and constructor that takes an options object
 * reads it with `readOptions`, once, at startup; the error's `option` names the path
 * (`createMCPEndpoint.someUnknownOption`, `createSecurity.openapi.info.title`).
 */
export const OptionErrorCodes = Object.freeze({
  /** The options value itself is not a plain object. */
  invalidOptions: 'configuration.invalid_options',
  /** A required option is absent (or `undefined`). */
  missingOption: 'configuration.missing_option',
  /** An option has the wrong type, or its custom check refused it. */
  invalidOption: 'configuration.invalid_option',
  /** A key the factory does not know: a typo must never fall back to a default silently. */
  unknownOption: 'configuration.unknown_option',
} as const)

/** What an option may be. `object` is any non-array object (a store, a service); `false` is the literal. */
export type OptionKind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'function'
  | 'object'
  | 'array'
  | 'iterable'
  | 'bytes'
  | 'false'

/** How one option is checked. Values are never rendered in messages, only names. */
export interface OptionRule {
  /** Absent (or `undefined`) is `configuration.missing_option`. */
  readonly required?: boolean
  /** Accepted kinds; omitted: any value. */
  readonly kind?: OptionKind | readonly OptionKind[]
  /** A plain-object value must follow this shape too (unknown keys refused); other objects are refused. */
  readonly shape?: OptionShapeDescription
  /** Each element of an array value follows this rule (path `name[0]`). */
  readonly elements?: OptionRule
  /** Runs after the kind check: answers what is wrong ("must be a positive integer"), or `undefined`. */
  readonly check?: (value: unknown) => string | undefined
  /**
   * A published code kept for a missing or wrongly typed value of this option (instead of
   * `configuration.missing_option` / `configuration.invalid_option`); unknown keys always use
   * `configuration.unknown_option`.
   */
  readonly code?: string
  /** Said after "is required" when the option is missing: what to pass (never a value). */
  readonly hint?: string
}

/** Allowed keys of an options object and their rules (the untyped form nested shapes use). */
export type OptionShapeDescription = { readonly [key: string]: OptionRule }

/** Keys a value must carry: required in the type and not allowing `undefined`. */
type RequiredKey<T> = {
  [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : undefined extends T[K] ? never : K
}[keyof T]

/**
 * The rules of every key of `T`: the compiler refuses a shape that forgets an option of `T`, names one `T`
 * lacks, or disagrees with `T` on which options are required.
 */
export type OptionsShape<T> = {
  readonly [K in keyof T]-?: K extends RequiredKey<T>
    ? OptionRule & { readonly required: true }
    : OptionRule & { readonly required?: false }
}

const KIND_TEXT: Readonly<Record<OptionKind, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  function: 'a function',
  object: 'an object',
  array: 'an array',
  iterable: 'an iterable',
  bytes: 'a Uint8Array',
  false: 'false',
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/
const MAX_KEY_TEXT = 64

/** Whether `value` is an object literal (or `Object.create(null)`), from any realm. */
function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}

function matchesKind(value: unknown, kind: OptionKind): boolean {
  switch (kind) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'function':
      return typeof value === kind
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'array':
      return Array.isArray(value)
    case 'iterable':
      return (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
      )
    case 'bytes':
      return value instanceof Uint8Array
    case 'false':
      return value === false
  }
}

/** A key as it appears in a path: names as written, anything odd quoted and cut short (never a value). */
function keyText(key: string): string {
  if (key.length <= MAX_KEY_TEXT && IDENTIFIER.test(key)) return key
  const cut = key.length > MAX_KEY_TEXT ? `${key.slice(0, MAX_KEY_TEXT)}...` : key
  return JSON.stringify(cut)
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let i = 1; i <= left.length; i += 1) {
    const current = [i]
    for (let j = 1; j <= right.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (left[i - 1] === right[j - 1] ? 0 : 1)
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution)
    }
    previous = current
  }
  return previous[right.length] as number
}

/** The known key closest to a misspelt one, when it is close enough to be a typo. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  if (key.length > MAX_KEY_TEXT) return undefined
  const lower = key.toLowerCase()
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase())
    const allowed = Math.max(1, Math.min(3, Math.floor(candidate.length / 3)))
    if (distance <= allowed && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

class OptionReader {
  readonly factory: string

  constructor(factory: string) {
    this.factory = factory
  }

  fail(code: string, path: string, problem: string): never {
    const option = `${this.factory}.${path}`
    throw new ConfigurationError(code, `${this.factory}: option ${path} ${problem}`, { option })
  }

  object(value: Readonly<Record<string, unknown>>, prefix: string, shape: OptionShapeDescription): void {
    const known = Object.keys(shape)
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(shape, key)) continue
      const path = `${prefix}${keyText(key)}`
      const suggestion = closestKey(key, known)
      const option = `${this.factory}.${path}`
      throw new ConfigurationError(
        OptionErrorCodes.unknownOption,
        `${this.factory}: unknown option ${path}${suggestion === undefined ? '' : ` (did you mean ${prefix}${suggestion}?)`}`,
        { option },
      )
    }
    for (const key of known) {
      const rule = shape[key] as OptionRule
      const path = `${prefix}${key}`
      const item = value[key]
      if (item === undefined) {
        if (rule.required === true) {
          this.fail(
            rule.code ?? OptionErrorCodes.missingOption,
            path,
            rule.hint === undefined ? 'is required' : `is required: ${rule.hint}`,
          )
        }
        continue
      }
      this.value(item, path, rule)
    }
  }

  value(value: unknown, path: string, rule: OptionRule): void {
    const kinds: readonly OptionKind[] =
      rule.kind === undefined ? [] : typeof rule.kind === 'string' ? [rule.kind] : rule.kind
    if (kinds.length > 0 && !kinds.some((kind) => matchesKind(value, kind))) {
      const wanted = kinds.map((kind) => KIND_TEXT[kind]).join(' or ')
      this.fail(rule.code ?? OptionErrorCodes.invalidOption, path, `must be ${wanted}`)
    }
    if (rule.shape !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if (!isPlainObject(value)) {
        this.fail(rule.code ?? OptionErrorCodes.invalidOption, path, 'must be a plain object')
      }
      this.object(value, `${path}.`, rule.shape)
    }
    const elements = rule.elements
    if (elements !== undefined && Array.isArray(value)) {
      value.forEach((element: unknown, index) => {
        this.value(element, `${path}[${index}]`, elements)
      })
    }
    const problem = rule.check?.(value)
    if (problem !== undefined) this.fail(rule.code ?? OptionErrorCodes.invalidOption, path, problem)
  }
}

/**
 * Checks an options object once, at startup, and returns it: not a plain object is
 * `configuration.invalid_options`; an unknown key `configuration.unknown_option` (with the closest known
 * key suggested); a missing required option `configuration.missing_option`; a wrong kind or a refused
 * custom check `configuration.invalid_option`. Nested shapes and array elements are checked the same way.
 * Every error is a `ConfigurationError` whose `option` is the path (`factory.key.nested[0]`); messages
 * name keys only, never values.
 */
export function readOptions<T>(received: T, factory: string, shape: OptionsShape<T>): T {
  const reader = new OptionReader(factory)
  if (!isPlainObject(received)) {
    throw new ConfigurationError(
      OptionErrorCodes.invalidOptions,
      `${factory}: options must be a plain object`,
      { option: factory },
    )
  }
  reader.object(received, '', shape as OptionShapeDescription)
  return received
}

/** A rule's check: an integer from `min` to `max`. */
export function integerBetween(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: unknown): string | undefined =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max
      ? undefined
      : max === Number.MAX_SAFE_INTEGER
        ? `must be an integer of at least ${min}`
        : `must be an integer from ${min} to ${max}`
}

/** A rule's check: a finite number from `min` to `max`. */
export function numberBetween(min: number, max = Number.MAX_VALUE) {
  return (value: unknown): string | undefined =>
    typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
      ? undefined
      : max === Number.MAX_VALUE
        ? `must be a finite number of at least ${min}`
        : `must be a number from ${min} to ${max}`
}
