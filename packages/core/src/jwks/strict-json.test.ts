import { describe, expect, it } from 'vitest'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { parseStrictJson } from './strict-json.js'

function codeOf(text: string, depth = 32): string | undefined {
  try {
    parseStrictJson(text, depth)
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'not-a-portcullis-error'
  }
}

describe('strict JSON parsing', () => {
  it('parses what JSON.parse parses, for well-formed documents', () => {
    const samples = [
      '{"a":1,"b":[true,false,null],"c":{"d":"e\\u00e9\\n"}}',
      '[]',
      '"x"',
      '-0.5e+10',
      ' { "kid" : "k1" } ',
      '{"s":"\\"\\\\\\/\\b\\f\\n\\r\\t"}',
    ]
    for (const text of samples) expect(parseStrictJson(text, 32)).toEqual(JSON.parse(text))
  })

  it('rejects duplicate members that JSON.parse silently collapses', () => {
    expect(JSON.parse('{"kid":"a","kid":"b"}')).toEqual({ kid: 'b' })
    expect(codeOf('{"kid":"a","kid":"b"}')).toBe('json.duplicate_member')
    expect(codeOf('{"x":{"a":1,"a":1}}')).toBe('json.duplicate_member')
    // Escapes are decoded before comparing, so "k\u0069d" is the same member as "kid".
    expect(codeOf('{"kid":"a","k\\u0069d":"b"}')).toBe('json.duplicate_member')
  })

  it('bounds nesting depth', () => {
    expect(codeOf('[[[1]]]', 3)).toBeUndefined()
    expect(codeOf('[[[[1]]]]', 3)).toBe('json.too_deep')
    expect(codeOf(`${'['.repeat(10_000)}${']'.repeat(10_000)}`, 64)).toBe('json.too_deep')
  })

  it('keeps __proto__ as plain data', () => {
    const value = parseStrictJson('{"__proto__":{"polluted":true}}', 8) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBeNull()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.keys(value)).toEqual(['__proto__'])
  })

  it.each([
    ['trailing data', '{"a":1} x'],
    ['two documents', '{}{}'],
    ['trailing comma', '{"a":1,}'],
    ['single quotes', "{'a':1}"],
    ['leading zero', '01'],
    ['NaN', 'NaN'],
    ['overflowing number', '1e400'],
    ['raw control character', '"a\u0001b"'],
    ['bad escape', '"\\x41"'],
    ['short unicode escape', '"\\u12"'],
    ['unterminated string', '"abc'],
    ['empty input', ''],
    ['bare word', 'truth'],
  ])('rejects %s as json.malformed', (_name, text) => {
    expect(codeOf(text)).toBe('json.malformed')
  })
})
