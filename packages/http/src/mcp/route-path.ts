import { ConfigurationError } from '@portcullis/core/errors'

/**
 * An Express route path a resource read can be addressed to: literal text and `:name` parameters
 * only (wildcards, optional groups, regular expressions and path arrays cannot be rebuilt from
 * template variables, so marked routes may not use them).
 */
export interface ResourceRoutePath {
  readonly pattern: string
  readonly parameters: readonly string[]
  /** The concrete path with every parameter percent-encoded. */
  build(values: Readonly<Record<string, string>>): string
}

type Token = { readonly literal: string } | { readonly parameter: string }

const PARAMETER = /:([A-Za-z_$][A-Za-z0-9_$]*)|:"((?:[^"\\]|\\.)+)"/y
const UNSUPPORTED = /[*?+(){}[\]\\]/

export function parseResourceRoutePath(pattern: unknown, resource: string): ResourceRoutePath {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) {
    throw new ConfigurationError(
      'mcp.route_path_unsupported',
      `MCP resource ${JSON.stringify(resource)}: its route path must be a string starting with "/"`,
    )
  }
  const tokens: Token[] = []
  let literal = ''
  let index = 0
  while (index < pattern.length) {
    const char = pattern.charAt(index)
    if (char === ':') {
      PARAMETER.lastIndex = index
      const match = PARAMETER.exec(pattern)
      const name = match?.[1] ?? match?.[2]?.replaceAll(/\\(.)/g, '$1')
      if (match === null || name === undefined) break
      if (literal !== '') tokens.push({ literal })
      literal = ''
      tokens.push({ parameter: name })
      index += match[0].length
      continue
    }
    if (UNSUPPORTED.test(char)) break
    literal += char
    index += 1
  }
  if (index < pattern.length) {
    throw new ConfigurationError(
      'mcp.route_path_unsupported',
      `MCP resource ${JSON.stringify(resource)}: route path ${pattern} may use only literal segments and :parameters`,
    )
  }
  if (literal !== '') tokens.push({ literal })
  const parameters = tokens.flatMap((token) => ('parameter' in token ? [token.parameter] : []))
  return Object.freeze({
    pattern,
    parameters: Object.freeze(parameters),
    build(values: Readonly<Record<string, string>>): string {
      return tokens
        .map((token) => ('literal' in token ? token.literal : encodeSegment(values[token.parameter] ?? '')))
        .join('')
    },
  })
}

/** Percent-encodes a parameter value; `.` and `..` are encoded too so no layer can treat them as dot segments. */
function encodeSegment(value: string): string {
  const encoded = encodeURIComponent(value)
  return encoded === '.' || encoded === '..' ? encoded.replaceAll('.', '%2E') : encoded
}

/** Joins a mount path and a route path the way Express resolves them. */
export function joinPaths(prefix: string, path: string): string {
  const left = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  if (path === '/' || path === '') return left === '' ? '/' : left
  return `${left}${path.startsWith('/') ? path : `/${path}`}`
}
