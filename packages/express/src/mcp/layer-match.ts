/**
 * Deciding at `attach()` whether one Express router layer takes part in a GET of a marked route, for every
 * value its template variables may take: `never`, `always` (with the text a mount consumes), or `maybe`
 * (the answer depends on the values: the read then goes through the full router).
 */

/** The parts of an Express 5 (router 2) layer a plan reads and calls. */
export interface LayerLike {
  readonly handle: unknown
  readonly rawPath?: unknown
  readonly slash?: boolean
  readonly route?: RouteLike
  match(path: string): false | { readonly params: Record<string, string>; readonly path: string }
  handleRequest(request: unknown, response: unknown, next: (error?: unknown) => void): void
  handleError(error: unknown, request: unknown, response: unknown, next: (error?: unknown) => void): void
}

export interface RouteLike {
  readonly path: unknown
  readonly stack: readonly { readonly handle: unknown; readonly method?: string }[]
  _handlesMethod(method: string): boolean
}

/** One `/`-separated segment of the target route pattern; `dynamic` when it holds a `:parameter`. */
export interface Segment {
  readonly text: string
  readonly dynamic: boolean
}

export type Decision =
  | { readonly kind: 'never' }
  | { readonly kind: 'maybe' }
  /** `consumed`: the segments of the target a mount matched (0 for a route or a root mount). */
  | { readonly kind: 'always'; readonly consumed: number; readonly parameterised: boolean }

const NEVER: Decision = Object.freeze({ kind: 'never' })
const MAYBE: Decision = Object.freeze({ kind: 'maybe' })
const SPECIAL = /[:*{}()[\]?+!\\]/
const PARAMETER_ONLY = /^:[A-Za-z_$][A-Za-z0-9_$]*$/

export function segmentsOf(pattern: string): Segment[] {
  return pattern
    .split('/')
    .slice(1)
    .map((text) => ({ text, dynamic: text.includes(':') }))
}

/** How Express loosens a non-strict path: trailing slashes do not count. */
function loosen(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed === '' ? '/' : trimmed
}

/**
 * A string layer path against the remaining target segments. `end`: a route (whole path) rather than a
 * mount (a prefix ending at a segment boundary). Literal segments are compared as Express does (case
 * folded unless the router is case sensitive); a literal against a template variable, a wildcard, an
 * optional group or a partial parameter cannot be decided.
 */
function decidePath(path: string, rest: readonly Segment[], end: boolean, sensitive: boolean): Decision {
  if (!path.startsWith('/')) return MAYBE
  const loose = loosen(path)
  const parts = loose === '/' ? [] : loose.split('/').slice(1)
  const target = end && rest.length > 0 && rest.at(-1)?.text === '' ? rest.slice(0, -1) : rest
  let undecided = false
  let parameterised = false
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index] as string
    const segment = target[index]
    if (SPECIAL.test(part) && !PARAMETER_ONLY.test(part))
      return firstLiteralMismatch(parts, target, index, sensitive)
    if (segment === undefined) return NEVER
    if (PARAMETER_ONLY.test(part)) {
      if (!segment.dynamic && segment.text === '') return NEVER
      parameterised = true
      continue
    }
    if (segment.dynamic) {
      undecided = true
      continue
    }
    const equal = sensitive ? part === segment.text : part.toLowerCase() === segment.text.toLowerCase()
    if (!equal) return NEVER
  }
  if (end && parts.length !== target.length) return NEVER
  if (undecided) return MAYBE
  return { kind: 'always', consumed: parts.length, parameterised }
}

/** After an undecidable part, a later literal can still rule the layer out (`/:v/api` vs `/x/other`). */
function firstLiteralMismatch(
  parts: readonly string[],
  target: readonly Segment[],
  from: number,
  sensitive: boolean,
): Decision {
  if (/[*{}]/.test(parts[from] as string)) return MAYBE // segment counts no longer line up
  for (let index = from + 1; index < parts.length; index += 1) {
    const part = parts[index] as string
    const segment = target[index]
    if (segment === undefined) return NEVER
    if (SPECIAL.test(part) || segment.dynamic) continue
    if (sensitive ? part !== segment.text : part.toLowerCase() !== segment.text.toLowerCase()) return NEVER
  }
  return MAYBE
}

/**
 * Whether a layer's path matches the remaining target segments for every template value. A RegExp path
 * is undecidable; of an array of paths, the first that is not `never` decides (Express tries them in order).
 */
export function decideTemplated(
  rawPath: unknown,
  rest: readonly Segment[],
  end: boolean,
  sensitive: boolean,
): Decision {
  if (typeof rawPath === 'string') return decidePath(rawPath, rest, end, sensitive)
  if (!Array.isArray(rawPath)) return MAYBE
  for (const path of rawPath) {
    const decision = typeof path === 'string' ? decidePath(path, rest, end, sensitive) : MAYBE
    if (decision.kind !== 'never') return decision
  }
  return NEVER
}
