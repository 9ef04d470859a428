import { describe, expect, it } from 'vitest'
import { canonicalUri, MCPResourceRegistry } from './registry.js'

function registry(skillsEnabled = false) {
  return new MCPResourceRegistry<string>({ scheme: 'fw', skillsEnabled })
}

const code = (expected: string) => expect.objectContaining({ code: expected })

describe('MCPResourceRegistry registration', () => {
  it('publishes a concrete resource as <scheme>://<name> and keeps registration order', () => {
    const resources = registry()
    resources.register({ name: 'config', mimeType: 'application/json', target: 'GET /config' })
    resources.register({ name: 'report', mimeType: 'application/pdf', description: 'Monthly', target: 'r' })
    expect(resources.resources.map((entry) => entry.uri)).toEqual(['fw://config', 'fw://report'])
    expect(resources.resources[1]).toMatchObject({ kind: 'resource', name: 'report', description: 'Monthly' })
    expect(resources.openapiUri).toBe('fw://openapi')
  })

  it('keeps templated resources out of the concrete list', () => {
    const resources = registry()
    resources.register({ name: 'wf', template: 'app://w/{wid}/f/{fid}', target: 't' })
    expect(resources.resources).toEqual([])
    expect(resources.templates.map((entry) => entry.uriTemplate)).toEqual(['app://w/{wid}/f/{fid}'])
  })

  it('refuses a duplicate name, between resources and between a resource and a template', () => {
    const resources = registry()
    resources.register({ name: 'x', target: '' })
    expect(() => resources.register({ name: 'x', target: '' })).toThrow(code('mcp.resource_duplicate'))
    expect(() => resources.register({ name: 'x', template: 'app://{id}', target: '' })).toThrow(
      code('mcp.resource_duplicate'),
    )
    expect(resources.resources).toHaveLength(1)
    expect(resources.templates).toHaveLength(0)
  })

  it('refuses the same template text twice, even under another name', () => {
    const resources = registry()
    resources.register({ name: 'a', template: 'app://w/{id}', target: '' })
    expect(() => resources.register({ name: 'b', template: 'app://w/{id}', target: '' })).toThrow(
      code('mcp.resource_duplicate'),
    )
  })

  it('refuses the built-in openapi URI', () => {
    expect(() => registry().register({ name: 'openapi', target: '' })).toThrow(code('mcp.resource_reserved'))
  })

  it('refuses skill:// templates only while skills are enabled', () => {
    expect(() =>
      registry(true).register({ name: 's', template: 'skill://{name}/SKILL.md', target: '' }),
    ).toThrow(code('mcp.skill_scheme_reserved'))
    expect(() => registry(true).register({ name: 's', template: 'SKILL://{name}/x', target: '' })).toThrow(
      code('mcp.skill_scheme_reserved'),
    )
    expect(
      registry(false).register({ name: 's', template: 'skill://{name}/SKILL.md', target: '' }).kind,
    ).toBe('template')
    expect(() => new MCPResourceRegistry({ scheme: 'skill', skillsEnabled: true })).toThrow(
      code('mcp.skill_scheme_reserved'),
    )
  })

  it.each(['', 'a b', 'a/b', '../x', 'é', '-x', 'x?y'])('refuses the name %j', (name) => {
    expect(() => registry().register({ name, target: '' })).toThrow(code('mcp.resource_name_invalid'))
  })

  it.each(['json', 'application/json; charset=utf-8', ' ', 'a//b'])(
    'refuses the mime type %j',
    (mimeType) => {
      expect(() => registry().register({ name: 'x', mimeType, target: '' })).toThrow(
        code('mcp.resource_invalid'),
      )
    },
  )

  it.each(['', 'Express', '1fw', 'f w'])('refuses the scheme %j', (scheme) => {
    expect(() => new MCPResourceRegistry({ scheme })).toThrow(code('mcp.scheme_invalid'))
  })

  it('propagates template validation errors and leaves no partial registration', () => {
    const resources = registry()
    expect(() => resources.register({ name: 'bad', template: 'app://{a}{b}', target: '' })).toThrow(
      code('mcp.template_invalid'),
    )
    expect(resources.register({ name: 'bad', target: '' }).kind).toBe('resource')
  })
})

describe('MCPResourceRegistry.resolve', () => {
  const resources = registry()
  resources.register({ name: 'config', target: 'config' })
  resources.register({ name: 'wf', template: 'app://w/{wid}/f/{fid}', target: 'wf' })
  resources.register({ name: 'other', template: 'app://w/{x}/f/{y}', target: 'other' })
  resources.register({ name: 'catch', template: 'fw://{name}', target: 'catch' })

  it('prefers concrete resources, then the first registered template', () => {
    expect(resources.resolve('fw://config')?.resource.target).toBe('config')
    expect(resources.resolve('fw://anything')).toMatchObject({
      resource: { target: 'catch' },
      params: { name: 'anything' },
    })
    expect(resources.resolve('app://w/1/f/2')).toMatchObject({
      resource: { target: 'wf' },
      params: { wid: '1', fid: '2' },
    })
  })

  it('skips hidden entries and keeps searching', () => {
    const hidden = resources.resolve('app://w/1/f/2', (entry) => entry.name !== 'wf')
    expect(hidden).toMatchObject({ resource: { target: 'other' }, params: { x: '1', y: '2' } })
    expect(resources.resolve('fw://config', (entry) => entry.name !== 'config')?.resource.target).toBe(
      'catch',
    )
  })

  it('answers undefined for a miss', () => {
    expect(resources.resolve('app://w/1/f/2/')).toBeUndefined()
  })

  it('keeps registration order between templates of a named authority and templates whose authority is a variable', () => {
    const openFirst = registry()
    openFirst.register({ name: 'any-tenant', template: 'app://{tenant}/report', target: 'open' })
    openFirst.register({ name: 'acme', template: 'app://acme/{page}', target: 'named' })
    openFirst.register({ name: 'acme-late', template: 'app://acme/{page}/x', target: 'late' })
    expect(openFirst.resolve('app://acme/report')?.resource.target).toBe('open')
    expect(openFirst.resolve('app://acme/overview')?.resource.target).toBe('named')
    expect(openFirst.resolve('app://acme/overview/x')?.resource.target).toBe('late')
    expect(openFirst.resolve('app://globex/report')?.resource.target).toBe('open')
    const namedFirst = registry()
    namedFirst.register({ name: 'acme', template: 'app://acme/{page}', target: 'named' })
    namedFirst.register({ name: 'any-tenant', template: 'app://{tenant}/report', target: 'open' })
    expect(namedFirst.resolve('app://acme/report')?.resource.target).toBe('named')
    expect(namedFirst.resolve('app://globex/report')?.resource.target).toBe('open')
    expect(namedFirst.resolve('APP://acme/report')?.resource.target).toBe('named')
    expect(namedFirst.resolve('app://acme')).toBeUndefined()
  })
})

describe('MCPResourceRegistry.link', () => {
  it('links to a registered concrete or templated resource with a resolvable URI', () => {
    const resources = registry()
    resources.register({ name: 'report', mimeType: 'application/pdf', target: 'r' })
    resources.register({ name: 'wf', template: 'app://w/{wid}/f/{fid}', target: 't' })
    expect(resources.link('report', { size: 1234 }).toContentBlock()).toEqual({
      type: 'resource_link',
      name: 'report',
      uri: 'fw://report',
      mimeType: 'application/pdf',
      size: 1234,
    })
    const link = resources.link('wf', { variables: { wid: 'a b', fid: '7' } })
    expect(link.uri).toBe('app://w/a%20b/f/7')
    expect(resources.resolve(link.uri)?.params).toEqual({ wid: 'a b', fid: '7' })
  })

  it('refuses an unknown name', () => {
    expect(() => registry().link('nope')).toThrow(code('mcp.resource_unknown'))
  })
})

describe('URI schemes and caching hints', () => {
  it('compares schemes case-insensitively and everything else exactly', () => {
    const registry = new MCPResourceRegistry<string>({ scheme: 'fw' })
    registry.register({ name: 'plans', target: 'plans' })
    registry.register({ name: 'item', template: 'Item://{id}', target: 'item' })
    expect(registry.resolve('FW://plans')?.resource.name).toBe('plans')
    expect(registry.resolve('fw://PLANS')).toBeUndefined()
    expect(registry.resolve('item://1')).toMatchObject({ params: { id: '1' } })
    expect(registry.resolve('ITEM://1')).toMatchObject({ params: { id: '1' } })
    expect(canonicalUri('HTTPS://Example.com/A')).toBe('https://Example.com/A')
    expect(canonicalUri('no scheme')).toBe('no scheme')
    // the same template text in another case is the same template
    expect(() => registry.register({ name: 'again', template: 'item://{id}', target: 'x' })).toThrow(
      expect.objectContaining({ code: 'mcp.resource_duplicate' }),
    )
  })

  it('keeps a non-negative integer ttlMs and refuses anything else', () => {
    const registry = new MCPResourceRegistry<string>({ scheme: 'fw' })
    expect(registry.register({ name: 'cached', ttlMs: 1000, target: 'x' })).toMatchObject({ ttlMs: 1000 })
    for (const ttlMs of [-1, 1.5, Number.NaN]) {
      expect(() =>
        registry.register({ name: `bad${String(ttlMs).replace(/\W/g, '')}`, ttlMs, target: 'x' }),
      ).toThrow(expect.objectContaining({ code: 'mcp.resource_invalid' }))
    }
  })
})
