// RFC 6570 level-1 URI templates and resource URIs: parsing refuses with a typed error only, matching agrees
// with a regular-expression oracle, `expand` is the inverse of `match`, and resolution never crosses a
// registered resource.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MCPResourceRegistry } from '../../src/mcp/registry.js'
import { parseUriTemplate, type UriTemplate } from '../../src/mcp/template.js'
import { anyText, linearIn, nearValid, outcome, RUNS } from './support.js'

type Part = { readonly literal: string } | { readonly variable: string }

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

/**
 * The documented matching rule as one regular expression: a variable is one or more characters other than
 * `/ ? #` among which the following literal never starts (so it ends at that literal's first occurrence),
 * and each capture is percent-decoded once (a malformed escape is a miss).
 */
function oracleMatch(parts: readonly Part[], uri: string): Record<string, string> | undefined {
  const source = parts
    .map((part, index) => {
      if ('literal' in part) return escapeRegExp(part.literal)
      const next = parts[index + 1]
      const stop = next !== undefined && 'literal' in next ? `(?!${escapeRegExp(next.literal)})` : ''
      return `((?:${stop}[^/?#])+)`
    })
    .join('')
  const match = new RegExp(`^${source}$`, 's').exec(uri)
  if (match === null) return undefined
  const names = parts.flatMap((part) => ('variable' in part ? [part.variable] : []))
  const values: Record<string, string> = Object.create(null)
  for (const [index, name] of names.entries()) {
    try {
      values[name] = decodeURIComponent(match[index + 1] ?? '')
    } catch {
      return undefined
    }
  }
  return values
}

const literalArb = fc.oneof(
  fc.constantFrom('/', '/f/', '.json', '-', '--', '/x-', '.', '~', '!', '%20', ':', 'a'),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@/-]{1,6}$/),
)
/** A valid template: a scheme literal, then variables separated by non-empty literals. */
const templateArb = fc
  .tuple(
    fc.constantFrom('app://w/', 'fw://files/', 'x:'),
    fc.uniqueArray(
      fc.oneof(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/),
        fc.constantFrom('__proto__', 'constructor'),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    fc.array(literalArb, { minLength: 3, maxLength: 3 }),
    fc.boolean(),
  )
  .map(([scheme, names, literals, trailing]) => {
    const parts: Part[] = [{ literal: scheme }]
    names.forEach((name, index) => {
      if (index > 0) parts.push({ literal: literals[index - 1] ?? '/' })
      parts.push({ variable: name })
    })
    if (trailing) parts.push({ literal: literals[2] ?? '/' })
    const text = parts.map((part) => ('literal' in part ? part.literal : `{${part.variable}}`)).join('')
    return { parts, text, template: parseUriTemplate(text) }
  })

const valueArb = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z0-9._~!*'()-]{1,12}$/),
  fc.constantFrom('a.json', 'x-y-z', '100%', 'a/b', '?#&=', '..', '%2F', '--', '~', "'", '\u{1f600}'),
)

/** Expands, accepting a typed refusal; any other throw fails the property. */
function expand(template: UriTemplate, values: Record<string, string>): string | undefined {
  const result = outcome(() => template.expand(values))
  if (result.ok) return result.value
  expect(result.error.code).toMatch(/^mcp\.template_value_/)
  return undefined
}

describe('parseUriTemplate under fuzzing', () => {
  it('parses or refuses with mcp.template_invalid, never anything else', () => {
    const text = fc.oneof(
      anyText(40),
      nearValid(
        templateArb.map(({ text }) => text),
        ['{', '}', '{}', '{+x}', '{a,b}', '{a}{b}', '//'],
      ),
    )
    fc.assert(
      fc.property(text, (value) => {
        const parsed = outcome(() => parseUriTemplate(value))
        if (!parsed.ok) expect(parsed.error.code).toBe('mcp.template_invalid')
        else expect(parsed.value.variables.length).toBeGreaterThan(0)
      }),
      { numRuns: RUNS.pure },
    )
  })
})

describe('UriTemplate.match under fuzzing', () => {
  it('agrees with the regular-expression oracle on mutated and arbitrary URIs, with bounded captures', () => {
    const cases = templateArb.chain((template) =>
      fc
        .oneof(
          fc
            .dictionary(fc.constantFrom(...template.template.variables), valueArb)
            .map((values) =>
              template.parts
                .map((part) =>
                  'literal' in part ? part.literal : encodeURIComponent(values[part.variable] ?? 'v'),
                )
                .join(''),
            ),
          anyText(30),
        )
        .chain((uri) => nearValid(fc.constant(uri), ['/', '%', '%2', '%zz', '%C3', '?', '#', '.json', '-']))
        .map((uri) => ({ template, uri })),
    )
    fc.assert(
      fc.property(cases, ({ template, uri }) => {
        const matched = template.template.match(uri)
        expect(matched).toEqual(oracleMatch(template.parts, uri))
        if (matched !== undefined) {
          const total = Object.values(matched).reduce((sum, value) => sum + value.length, 0)
          expect(total).toBeLessThanOrEqual(uri.length)
        }
      }),
      { numRuns: RUNS.pure },
    )
  })

  it('answers a megabyte adversarial URI in linear time', () => {
    const template = parseUriTemplate('app://p/{a}-{b}-{c}.json')
    const uri = `app://p/${'-'.repeat(1024 * 1024)}x`
    expect(linearIn(uri, () => template.match(uri))).toBeUndefined()
  })
})

describe('UriTemplate.expand under fuzzing', () => {
  it('is the inverse of match: match(expand(values)) gives the values back, or expand refuses with a typed error', () => {
    const cases = templateArb.chain((template) =>
      fc.tuple(...template.template.variables.map(() => valueArb)).map((values) => ({
        template,
        values: Object.fromEntries(
          template.template.variables.map((name, index) => [name, values[index] ?? '']),
        ),
      })),
    )
    fc.assert(
      fc.property(cases, ({ template, values }) => {
        const uri = expand(template.template, values)
        if (uri === undefined) return
        expect(template.template.match(uri)).toEqual(values)
      }),
      { numRuns: RUNS.pure },
    )
  })

  // Counterexamples fuzzing found: expand crashed (URIError) on lone surrogates, and match dropped a
  // variable named __proto__. Fixed so that every run checks them.
  for (const [label, value] of [
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate after a letter', 'a\udc00'],
    ['a reversed pair', '\udfff\ud800'],
    ['a truncated pair', 'x\ud83d'],
  ] as const) {
    it(`lone surrogates: refuses ${label} with a typed error`, () => {
      expect(expand(parseUriTemplate('app://w/{id}'), { id: value })).toBeUndefined()
    })
  }

  it('__proto__: a variable named __proto__ is matched, expanded and read back like any other', () => {
    const template = parseUriTemplate('app://w/{__proto__}/f/{constructor}')
    const matched = template.match('app://w/x%2Fy/f/z')
    expect(matched).toEqual(
      oracleMatch(
        [{ literal: 'app://w/' }, { variable: '__proto__' }, { literal: '/f/' }, { variable: 'constructor' }],
        'app://w/x%2Fy/f/z',
      ),
    )
    const own = matched === undefined ? undefined : Object.getOwnPropertyDescriptor(matched, '__proto__')
    expect(own?.value).toBe('x/y')
    const values = Object.fromEntries([
      ['__proto__', 'a/b'],
      ['constructor', 'c'],
    ])
    const uri = expand(template, values)
    expect(uri).toBe('app://w/a%2Fb/f/c')
    expect(uri === undefined ? undefined : template.match(uri)).toEqual(values)
  })
})

describe('MCPResourceRegistry.resolve under fuzzing', () => {
  const registry = new MCPResourceRegistry<string>({ scheme: 'fw' })
  registry.register({ name: 'config', target: 'config' })
  registry.register({ name: 'wf', template: 'app://w/{wid}/f/{fid}', target: 'wf' })
  registry.register({ name: 'file', template: 'APP://files/{name}.json', target: 'file' })
  const templates = [parseUriTemplate('app://w/{wid}/f/{fid}'), parseUriTemplate('app://files/{name}.json')]

  it('resolves a URI only to the concrete resource it names or the first template that matches it', () => {
    const uri = fc.oneof(
      nearValid(fc.constantFrom('fw://config', 'app://w/1/f/2', 'app://files/report.json', 'FW://config'), [
        '/',
        '%2F',
        '.json',
        ':',
        'fw://',
      ]),
      anyText(30),
    )
    fc.assert(
      fc.property(uri, (value) => {
        const resolved = outcome(() => registry.resolve(value))
        expect(resolved.ok).toBe(true)
        if (!resolved.ok) return
        const lowered = value.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, (scheme) => scheme.toLowerCase())
        const expected =
          lowered === 'fw://config'
            ? { target: 'config', params: {} }
            : templates[0]?.match(lowered) !== undefined
              ? { target: 'wf', params: templates[0]?.match(lowered) }
              : templates[1]?.match(lowered) !== undefined
                ? { target: 'file', params: templates[1]?.match(lowered) }
                : undefined
        expect(
          resolved.value === undefined
            ? undefined
            : { target: resolved.value.resource.target, params: resolved.value.params },
        ).toEqual(expected)
      }),
      { numRuns: RUNS.pure },
    )
  })
})
