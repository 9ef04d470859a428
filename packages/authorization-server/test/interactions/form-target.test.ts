import { describe, expect, it } from 'vitest'
import { formTargetSource } from '../../src/interactions/http.js'

describe("the consent page's form-action source for the redirect URI", () => {
  it('is the origin of an http(s) redirect URI, path and query dropped', () => {
    expect(formTargetSource('http://127.0.0.1:33418/callback?x=1')).toBe('http://127.0.0.1:33418')
    expect(formTargetSource('https://claude.ai/api/mcp/auth_callback')).toBe('https://claude.ai')
  })

  it('is the scheme of an IPv6 loopback (CSP host sources have no IPv6 literal) or of a native scheme', () => {
    expect(formTargetSource('http://[::1]:8080/cb')).toBe('http:')
    expect(formTargetSource('cursor://anysphere.cursor-retrieval/oauth/callback')).toBe('cursor:')
    expect(formTargetSource('com.example.app:/oauth2redirect')).toBe('com.example.app:')
  })

  it('is nothing for a script or local scheme', () => {
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'blob:https://a/b',
      'file:///etc',
      'about:blank',
    ]) {
      expect(formTargetSource(bad), bad).toBeUndefined()
    }
  })

  it('is nothing for what cannot be a source: no CSP syntax gets through', () => {
    for (const bad of [undefined, 42, '', 'not a url', "javascript:alert(1)'; script-src *"]) {
      const source = formTargetSource(bad)
      expect(source === undefined || /^[a-z][a-z0-9+.-]*:$/.test(source), String(bad)).toBe(true)
    }
  })
})
