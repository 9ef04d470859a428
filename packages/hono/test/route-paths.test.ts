import { ConfigurationError } from '@portcullis/core/errors'
import { describe, expect, it } from 'vitest'
import { routePattern } from '../src/security/paths.js'

describe('routePattern: Hono route paths in the route-path syntax of the HTTP layer', () => {
  it('keeps plain paths and :name parameters; the empty path is the root', () => {
    expect(routePattern('/reports/:id')).toBe('/reports/:id')
    expect(routePattern('/')).toBe('/')
    expect(routePattern('')).toBe('/')
  })

  it('drops the regular expression of a parameter', () => {
    expect(routePattern('/items/:id{[0-9]+}')).toBe('/items/:id')
    expect(routePattern('/t/:tenant{[a-z]+}/f/:file{.+\\.png}')).toBe('/t/:tenant/f/:file')
    // an expression with braces of its own
    expect(routePattern('/i18n/:lang{[a-z]{2}}/docs')).toBe('/i18n/:lang/docs')
    expect(routePattern('/codes/:code{[A-Z]{2,3}}/:n{\\d{1,4}}')).toBe('/codes/:code/:n')
  })

  it('makes an optional last parameter an optional group', () => {
    expect(routePattern('/files/:name?')).toBe('/files{/:name}')
  })

  it("names Hono's trailing wildcard, at the root too", () => {
    expect(routePattern('/static/*')).toBe('/static/*wildcard')
    expect(routePattern('/*')).toBe('/*wildcard')
  })

  it('refuses any other wildcard and a path not starting with /', () => {
    for (const path of ['/files/*/meta', '/a*', '/a/*wildcard', '*', 'relative/:id']) {
      let refusal: unknown
      try {
        routePattern(path)
      } catch (error) {
        refusal = error
      }
      expect(refusal, path).toBeInstanceOf(ConfigurationError)
      expect((refusal as ConfigurationError).code).toBe('route.invalid_path')
      expect((refusal as ConfigurationError).message).toContain(`"${path}"`)
    }
  })
})
