import { ConfigurationError, InvalidInputError } from '../errors/index.js'

/**
 * A parsed RFC 6570 level-1 URI template (`app://w/{wid}/f/{fid}`).
 *
 * Matching rules: literals match exactly; `{var}` captures one non-empty run of characters that never
 * contains `/` (nor a raw `?` or `#`), ending at the first occurrence of the literal that follows it (or at the end of the URI
 * for a trailing variable). Matching is linear in the URI length. Each captured value is then
 * percent-decoded exactly once; a malformed escape makes the whole match a miss.
 */
export interface UriTemplate {
  /** The template text as registered. */
  readonly template: string
  /** Variable names in order of appearance. */
  readonly variables: readonly string[]
  /** Captured, percent-decoded variables, or `undefined` when the URI does not match. */
  match(uri: string): Readonly<Record<string, string>> | undefined
  /**
   * Builds a concrete URI, percent-encoding each value; the inverse of `match`. Throws `InvalidInputError`:
   * `mcp.template_value_missing` for a missing or empty value, `mcp.template_value_invalid` for a value that
   * is not well-formed Unicode or that `match` would not read back (rare: a literal starting with `%`).
   */
  expand(values: Readonly<Record<string, string>>): string
}

type Part =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'variable'; readonly name: string }

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'])
/** A raw value never crosses a path segment, and never swallows a query or fragment. */
const DELIMITERS = /[/?#]/
const SCHEME_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:/

function invalid(template: string, reason: string): ConfigurationError {
  return new ConfigurationError(
    'mcp.template_invalid',
    `invalid URI template ${JSON.stringify(template)}: ${reason}`,
  )
}

function parseParts(template: string): Part[] {
  const parts: Part[] = []
  let literal = ''
  let index = 0
  while (index < template.length) {
    const char = template[index]
    if (char === '}') throw invalid(template, `unbalanced '}' at ${index}`)
    if (char !== '{') {
      literal += char
      index += 1
      continue
    }
    const close = template.indexOf('}', index + 1)
    if (close === -1) throw invalid(template, `unbalanced '{' at ${index}`)
    const name = template.slice(index + 1, close)
    if (name.length === 0) throw invalid(template, 'empty variable {}')
    if (name.includes('{')) throw invalid(template, `nested '{' at ${index}`)
    if (OPERATORS.has(name.charAt(0))) {
      throw invalid(template, `operator '${name.charAt(0)}' is not supported (level 1 only)`)
    }
    if (!IDENTIFIER.test(name))
      throw invalid(template, `variable name ${JSON.stringify(name)} is not an identifier`)
    if (literal.length > 0) parts.push({ kind: 'literal', text: literal })
    else if (parts.length > 0) throw invalid(template, `adjacent variables before {${name}}`)
    literal = ''
    parts.push({ kind: 'variable', name })
    index = close + 1
  }
  if (literal.length > 0) parts.push({ kind: 'literal', text: literal })
  return parts
}

function decodeOnce(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}

function matchParts(parts: readonly Part[], uri: string): Record<string, string> | undefined {
  // prototype-free, so a variable named `__proto__` is captured like any other instead of being dropped
  const raw: Record<string, string> = Object.create(null)
  let position = 0
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index] as Part
    if (part.kind === 'literal') {
      if (!uri.startsWith(part.text, position)) return undefined
      position += part.text.length
      continue
    }
    const next = parts[index + 1]
    // parts alternate (adjacent variables are rejected), so `next` is a literal or the end
    const end = next?.kind === 'literal' ? uri.indexOf(next.text, position) : uri.length
    if (end === -1) return undefined
    const value = uri.slice(position, end)
    if (value.length === 0 || DELIMITERS.test(value)) return undefined
    raw[part.name] = value
    position = end
  }
  if (position !== uri.length) return undefined
  const decoded: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries(raw)) {
    const plain = decodeOnce(value)
    if (plain === undefined) return undefined
    decoded[name] = plain
  }
  return decoded
}

/** Characters `encodeURIComponent` leaves as they are. */
const UNESCAPED = /^[A-Za-z0-9\-_.!~*'()]$/

function invalidValue(name: string, reason: string): InvalidInputError {
  return new InvalidInputError('mcp.template_value_invalid', `template variable {${name}} ${reason}`)
}

/**
 * Percent-encodes one value. `match` ends a variable at the first occurrence of the literal after it, so
 * that literal's first character is escaped too when `encodeURIComponent` would leave it (`.` before
 * `.json`, `-` between two variables): otherwise `a.json` in `{name}.json` would read back as `a`.
 */
function encodeValue(value: string, name: string, next: string | undefined): string {
  const stop = next?.charAt(0) ?? ''
  try {
    if (!UNESCAPED.test(stop) || !value.includes(stop)) return encodeURIComponent(value)
    let encoded = ''
    for (const char of value) {
      encoded +=
        char === stop ? `%${char.charCodeAt(0).toString(16).toUpperCase()}` : encodeURIComponent(char)
    }
    return encoded
  } catch {
    throw invalidValue(name, 'is not well-formed Unicode')
  }
}

/**
 * Parses and validates a level-1 template: identifier variable names, balanced braces, no operators,
 * no adjacent variables, no repeated variable, at least one variable, and a URI scheme.
 * Throws `ConfigurationError` (`mcp.template_invalid`) otherwise.
 */
export function parseUriTemplate(template: string): UriTemplate {
  if (typeof template !== 'string' || template.length === 0) throw invalid(String(template), 'empty template')
  const parts = parseParts(template)
  const variables = parts.flatMap((part) => (part.kind === 'variable' ? [part.name] : []))
  if (variables.length === 0) throw invalid(template, 'a template needs at least one {variable}')
  if (new Set(variables).size !== variables.length) throw invalid(template, 'a variable is repeated')
  const first = parts[0]
  if (first === undefined || first.kind !== 'literal' || !SCHEME_PREFIX.test(first.text)) {
    throw invalid(template, 'it must start with a literal URI scheme such as app://')
  }
  const frozen = Object.freeze([...variables])
  return Object.freeze({
    template,
    variables: frozen,
    match: (uri: string) => (typeof uri === 'string' ? matchParts(parts, uri) : undefined),
    expand(values: Readonly<Record<string, string>>): string {
      const uri = parts
        .map((part, index) => {
          if (part.kind === 'literal') return part.text
          const value = values[part.name]
          if (typeof value !== 'string' || value.length === 0) {
            throw new InvalidInputError(
              'mcp.template_value_missing',
              `no value for template variable {${part.name}}`,
            )
          }
          const next = parts[index + 1]
          return encodeValue(value, part.name, next?.kind === 'literal' ? next.text : undefined)
        })
        .join('')
      const back = matchParts(parts, uri)
      for (const name of frozen) {
        if (back?.[name] !== values[name]) throw invalidValue(name, 'cannot be expanded unambiguously')
      }
      return uri
    },
  })
}
