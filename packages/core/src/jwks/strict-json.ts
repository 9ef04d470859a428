import { InvalidInputError } from '../errors/portcullis-error.js'

/** A JSON value as produced by `parseStrictJson`; objects have a null prototype. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [member: string]: JsonValue }

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/**
 * Parses JSON more strictly than `JSON.parse`: duplicate object members (where `JSON.parse` silently
 * keeps the last), nesting deeper than `maxDepth`, non-finite numbers and trailing data are rejected.
 * Objects are created without a prototype, so a `__proto__` member is plain data. Throws `InvalidInputError`
 * with code `json.malformed`, `json.duplicate_member` or `json.too_deep`; messages never echo input.
 */
export function parseStrictJson(text: string, maxDepth: number): JsonValue {
  let index = 0

  const fail = (code: string, message: string): never => {
    throw new InvalidInputError(code, message)
  }
  const skipWhitespace = (): void => {
    for (;;) {
      const code = text.charCodeAt(index)
      if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) index++
      else return
    }
  }

  const parseString = (): string => {
    // index points at the opening quote
    index++
    let result = ''
    let chunkStart = index
    for (;;) {
      if (index >= text.length) fail('json.malformed', 'unterminated JSON string')
      const code = text.charCodeAt(index)
      if (code === 0x22) {
        result += text.slice(chunkStart, index)
        index++
        return result
      }
      if (code < 0x20) fail('json.malformed', 'control character in JSON string')
      if (code !== 0x5c) {
        index++
        continue
      }
      result += text.slice(chunkStart, index)
      const escaped = text[index + 1]
      index += 2
      switch (escaped) {
        case '"':
        case '\\':
        case '/':
          result += escaped
          break
        case 'b':
          result += '\b'
          break
        case 'f':
          result += '\f'
          break
        case 'n':
          result += '\n'
          break
        case 'r':
          result += '\r'
          break
        case 't':
          result += '\t'
          break
        case 'u': {
          const hex = text.slice(index, index + 4)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('json.malformed', 'bad unicode escape in JSON string')
          result += String.fromCharCode(Number.parseInt(hex, 16))
          index += 4
          break
        }
        default:
          fail('json.malformed', 'bad escape in JSON string')
      }
      chunkStart = index
    }
  }

  const parseValue = (depth: number): JsonValue => {
    skipWhitespace()
    const char = text[index]
    if (char === '{' || char === '[') {
      if (depth >= maxDepth) fail('json.too_deep', 'JSON document nests too deeply')
      return char === '{' ? parseObject(depth + 1) : parseArray(depth + 1)
    }
    if (char === '"') return parseString()
    if (text.startsWith('true', index)) {
      index += 4
      return true
    }
    if (text.startsWith('false', index)) {
      index += 5
      return false
    }
    if (text.startsWith('null', index)) {
      index += 4
      return null
    }
    NUMBER.lastIndex = index
    const match = NUMBER.exec(text)
    if (match === null) return fail('json.malformed', 'unexpected token in JSON document')
    index += match[0].length
    const value = Number(match[0])
    if (!Number.isFinite(value)) fail('json.malformed', 'non-finite number in JSON document')
    return value
  }

  const parseObject = (depth: number): JsonValue => {
    index++
    const result: { [member: string]: JsonValue } = Object.create(null)
    skipWhitespace()
    if (text[index] === '}') {
      index++
      return result
    }
    for (;;) {
      skipWhitespace()
      if (text[index] !== '"') fail('json.malformed', 'expected a member name in JSON object')
      const name = parseString()
      if (Object.hasOwn(result, name)) fail('json.duplicate_member', 'duplicate member in JSON object')
      skipWhitespace()
      if (text[index] !== ':') fail('json.malformed', 'expected ":" in JSON object')
      index++
      result[name] = parseValue(depth)
      skipWhitespace()
      const next = text[index++]
      if (next === '}') return result
      if (next !== ',') fail('json.malformed', 'expected "," or "}" in JSON object')
    }
  }

  const parseArray = (depth: number): JsonValue => {
    index++
    const result: JsonValue[] = []
    skipWhitespace()
    if (text[index] === ']') {
      index++
      return result
    }
    for (;;) {
      result.push(parseValue(depth))
      skipWhitespace()
      const next = text[index++]
      if (next === ']') return result
      if (next !== ',') fail('json.malformed', 'expected "," or "]" in JSON array')
    }
  }

  const value = parseValue(0)
  skipWhitespace()
  if (index !== text.length) fail('json.malformed', 'trailing data after JSON document')
  return value
}

/** Narrows a parsed value to a (prototype-free) JSON object. */
export function isJsonObject(value: JsonValue | undefined): value is { [member: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
