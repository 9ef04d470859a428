import { describe, expect, it } from 'vitest'
import { joinPaths, parseResourceRoutePath } from './route-path.js'

describe('parseResourceRoutePath', () => {
  it('finds :parameters and rebuilds a concrete path with encoded values', () => {
    const path = parseResourceRoutePath('/tenants/:tenantId/files/:file.json', 'r')
    expect(path.parameters).toEqual(['tenantId', 'file'])
    expect(path.build({ tenantId: 'acme', file: 'a b/../c' })).toBe('/tenants/acme/files/a%20b%2F..%2Fc.json')
  })

  it('encodes dot-segment values so the in-process path cannot climb', () => {
    const path = parseResourceRoutePath('/w/:wid/f/:fid', 'r')
    expect(path.build({ wid: '..', fid: '.' })).toBe('/w/%2E%2E/f/%2E')
    expect(path.build({ wid: '...', fid: 'a.b' })).toBe('/w/.../f/a.b')
  })

  it('accepts quoted parameter names', () => {
    const path = parseResourceRoutePath('/x/:"weird-name"', 'r')
    expect(path.parameters).toEqual(['weird-name'])
    expect(path.build({ 'weird-name': '1' })).toBe('/x/1')
  })

  it.each(['/files/*splat', '/files{/:name}', '/a/(b)', '/a/:', 'relative', '/a?'])(
    'refuses %s, which a template cannot rebuild',
    (pattern) => {
      expect(() => parseResourceRoutePath(pattern, 'r')).toThrow(
        expect.objectContaining({ code: 'mcp.route_path_unsupported' }),
      )
    },
  )

  it('refuses non-string paths', () => {
    expect(() => parseResourceRoutePath(/regex/, 'r')).toThrow(
      expect.objectContaining({ code: 'mcp.route_path_unsupported' }),
    )
  })
})

describe('joinPaths', () => {
  it.each([
    ['', '/x', '/x'],
    ['/', '/x', '/x'],
    ['/api', '/x', '/api/x'],
    ['/api/', '/x', '/api/x'],
    ['/api', '/', '/api'],
    ['', '/', '/'],
  ])('joins %j and %j as %j', (prefix, path, joined) => {
    expect(joinPaths(prefix, path)).toBe(joined)
  })
})
