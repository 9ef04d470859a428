import { describe, expect, it } from 'vitest'
import { isPortcullisError } from '../errors/index.js'
import { parseUriTemplate } from './template.js'

function rejection(template: string): string {
  try {
    parseUriTemplate(template)
  } catch (error) {
    if (isPortcullisError(error)) return `${error.code}: ${error.message}`
    throw error
  }
  throw new Error(`expected ${template} to be rejected`)
}

describe('parseUriTemplate validation', () => {
  it.each([
    ['app://w/{wid', "unbalanced '{'"],
    ['app://w/wid}', "unbalanced '}'"],
    ['app://w/{}', 'empty variable'],
    ['app://w/{+path}', "operator '+'"],
    ['app://w/{/path}', "operator '/'"],
    ['app://w/{?q}', "operator '?'"],
    ['app://w/{#frag}', "operator '#'"],
    ['app://w/{0foo}', 'not an identifier'],
    ['app://w/{a-b}', 'not an identifier'],
    ['app://w/{a,b}', 'not an identifier'],
    ['app://w/{a{b}}', "nested '{'"],
    ['app://w/{a}{b}', 'adjacent variables'],
    ['app://w/{a}/x/{a}', 'repeated'],
    ['app://w/fixed', 'at least one {variable}'],
    ['{scheme}://w', 'literal URI scheme'],
    ['w/{id}', 'literal URI scheme'],
    ['', 'empty template'],
  ])('rejects %s', (template, reason) => {
    const message = rejection(template)
    expect(message).toMatch(/^mcp\.template_invalid: /)
    expect(message).toContain(reason)
  })

  it('accepts identifiers with underscores and digits and reports variables in order', () => {
    const template = parseUriTemplate('app://w/{w_id1}/f/{_fid}')
    expect(template.variables).toEqual(['w_id1', '_fid'])
    expect(template.template).toBe('app://w/{w_id1}/f/{_fid}')
    expect(Object.isFrozen(template.variables)).toBe(true)
  })
})

describe('UriTemplate.match', () => {
  const wf = parseUriTemplate('app://w/{wid}/f/{fid}')

  it('captures one segment per variable', () => {
    expect(wf.match('app://w/42/f/99')).toEqual({ wid: '42', fid: '99' })
  })

  it.each([
    ['empty segment', 'app://w//f/1'],
    ['crossing a slash', 'app://w/1/2/f/3'],
    ['trailing slash', 'app://w/1/f/2/'],
    ['wrong scheme', 'apx://w/1/f/2'],
    ['missing tail', 'app://w/1/f/'],
    ['prefix only', 'app://w/'],
    ['extra text', 'app://w/1/f/2?x=1#y'],
  ])('misses on %s', (_label, uri) => {
    expect(wf.match(uri)).toBeUndefined()
  })

  it('percent-decodes captured values exactly once and keeps + literal', () => {
    expect(wf.match('app://w/a%20b/f/1')).toEqual({ wid: 'a b', fid: '1' })
    expect(wf.match('app://w/a%2Fb/f/1')).toEqual({ wid: 'a/b', fid: '1' })
    expect(wf.match('app://w/%2541/f/1')).toEqual({ wid: '%41', fid: '1' })
    expect(wf.match('app://w/a+b/f/%C3%A9')).toEqual({ wid: 'a+b', fid: 'é' })
  })

  it.each(['app://w/%zz/f/1', 'app://w/%E0%A4%A/f/1', 'app://w/abc%/f/1', 'app://w/%C3/f/1'])(
    'treats a malformed escape as a miss: %s',
    (uri) => {
      expect(wf.match(uri)).toBeUndefined()
    },
  )

  it('ends a variable at the first occurrence of the following literal', () => {
    const file = parseUriTemplate('app://files/{name}.json')
    expect(file.match('app://files/report.json')).toEqual({ name: 'report' })
    expect(file.match('app://files/v1.2.json')).toEqual({ name: 'v1.2' })
    expect(file.match('app://files/.json')).toBeUndefined()
    const pair = parseUriTemplate('app://p/{a}-{b}')
    expect(pair.match('app://p/x-y-z')).toEqual({ a: 'x', b: 'y-z' })
  })

  it('stays linear on adversarial input and answers a miss', () => {
    const many = parseUriTemplate('app://p/{a}-{b}-{c}-{d}!')
    expect(many.match(`app://p/${'-'.repeat(200_000)}x`)).toBeUndefined()
  })

  it('treats non-string input as a miss', () => {
    expect(wf.match(42 as unknown as string)).toBeUndefined()
  })
})

describe('UriTemplate.expand', () => {
  const wf = parseUriTemplate('app://w/{wid}/f/{fid}')

  it('percent-encodes values so match(expand(v)) gives v back', () => {
    for (const value of ['plain', 'a b', 'a/b', '100%', 'é+ü', '?#&=', '..']) {
      const uri = wf.expand({ wid: value, fid: 'x' })
      expect(wf.match(uri)).toEqual({ wid: value, fid: 'x' })
    }
  })

  it('refuses a missing or empty value with a typed error', () => {
    expect(() => wf.expand({ wid: '1' })).toThrow(
      expect.objectContaining({ code: 'mcp.template_value_missing' }),
    )
    expect(() => wf.expand({ wid: '', fid: '1' })).toThrow(
      expect.objectContaining({ code: 'mcp.template_value_missing' }),
    )
  })
})
