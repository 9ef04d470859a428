import { ConfigurationError } from '@portcullis/core/errors'

type Token =
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string; readonly wildcard: boolean }
  | { readonly kind: 'group'; readonly tokens: readonly Token[] }

/** At most this many optional groups per path (each doubles the documented variants). */
const MAX_GROUPS = 4
const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*/

const invalid = (path: string, why: string) =>
  new ConfigurationError('route.invalid_path', `route path "${path}" ${why}`)

function parse(path: string): Token[] {
  let index = 0
  let groups = 0
  const sequence = (depth: number): Token[] => {
    const tokens: Token[] = []
    let text = ''
    const flush = () => {
      if (text !== '') tokens.push({ kind: 'text', value: text })
      text = ''
    }
    while (index < path.length) {
      const char = path[index] as string
      if (char === '\\') {
        text += path[index + 1] ?? ''
        index += 2
      } else if (char === ':' || char === '*') {
        const match = NAME.exec(path.slice(index + 1))
        if (match === null) throw invalid(path, `has an unnamed or quoted parameter at ${index}`)
        flush()
        tokens.push({ kind: 'param', name: match[0], wildcard: char === '*' })
        index += 1 + match[0].length
      } else if (char === '{') {
        flush()
        index += 1
        groups += 1
        if (groups > MAX_GROUPS) throw invalid(path, `has more than ${MAX_GROUPS} optional groups`)
        tokens.push({ kind: 'group', tokens: sequence(depth + 1) })
      } else if (char === '}') {
        if (depth === 0) throw invalid(path, 'closes a group it never opened')
        index += 1
        flush()
        return tokens
      } else if ('()[]?+!'.includes(char)) {
        throw invalid(path, `uses reserved character "${char}"`)
      } else {
        text += char
        index += 1
      }
    }
    if (depth > 0) throw invalid(path, 'leaves a group open')
    flush()
    return tokens
  }
  return sequence(0)
}

/** Every concrete variant of a token list (optional groups present or absent). */
function variants(tokens: readonly Token[]): Token[][] {
  let result: Token[][] = [[]]
  for (const token of tokens) {
    if (token.kind === 'group') {
      const inner = variants(token.tokens)
      result = result.flatMap((prefix) => [prefix, ...inner.map((suffix) => [...prefix, ...suffix])])
    } else {
      result = result.map((prefix) => [...prefix, token])
    }
  }
  return result
}

export interface ParsedRoutePath {
  /** OpenAPI path templates (`/tenants/{tenantId}`), one per optional-group variant. */
  readonly openapiPaths: readonly string[]
  /** Every path parameter name the route may capture. */
  readonly parameters: readonly string[]
  /** Parameters present in every variant. */
  readonly requiredParameters: readonly string[]
}

/** Parses an Express 5 path (`/a/:id`, `/files/*path`, `/a{/:b}`) for documentation and validation. */
export function parseRoutePath(path: string): ParsedRoutePath {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new ConfigurationError('route.invalid_path', 'route paths must be strings starting with "/"')
  }
  const all = variants(parse(path))
  const names = (tokens: readonly Token[]) =>
    tokens.flatMap((token) => (token.kind === 'param' ? [token.name] : []))
  const parameters = [...new Set(all.flatMap(names))]
  const seenNames = all.map(names)
  for (const list of seenNames) {
    if (new Set(list).size !== list.length) throw invalid(path, 'repeats a parameter name')
  }
  const openapiPaths = [
    ...new Set(
      all.map((tokens) =>
        tokens
          .map((token) =>
            token.kind === 'text' ? token.value : `{${token.kind === 'param' ? token.name : ''}}`,
          )
          .join(''),
      ),
    ),
  ].map((documented) => (documented === '' ? '/' : documented))
  return {
    openapiPaths: Object.freeze(openapiPaths),
    parameters: Object.freeze(parameters),
    requiredParameters: Object.freeze(
      parameters.filter((name) => seenNames.every((list) => list.includes(name))),
    ),
  }
}

/** Joins a router prefix and a route path (`/api` + `/x` -> `/api/x`; `/api` + `/` -> `/api`). */
export function joinPath(prefix: string, path: string): string {
  if (prefix === '' || prefix === '/') return path
  return path === '/' ? prefix : `${prefix}${path}`
}
