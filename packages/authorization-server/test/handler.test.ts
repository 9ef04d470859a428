import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'

describe('the handler', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({
      overrides: {
        interactions: {
          handle: async () => {
            throw new Error('interaction store password=hunter2')
          },
        },
      },
    })
  })
  afterAll(async () => h.close())

  it('answers a failing interaction with a problem document that reveals nothing', async () => {
    const response = await fetch(`${h.issuer}/interaction/some-uid`)
    expect(response.status).toBe(500)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const text = await response.text()
    expect(JSON.parse(text)).toMatchObject({ status: 500, code: 'interaction_failed' })
    expect(text).not.toContain('hunter2')
  })

  it('answers an authorization error it cannot redirect as problem+json', async () => {
    const response = await fetch(`${h.issuer}/auth?client_id=unknown-client&response_type=code`)
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    expect(await response.json()).toMatchObject({ type: 'about:blank', status: 400, code: 'invalid_client' })
  })

  it('shows a browser (Accept: text/html) an HTML page for that error, escaped, with the code for support', async () => {
    const response = await fetch(
      `${h.issuer}/auth?client_id=${encodeURIComponent('<img src=x onerror=alert(1)>')}&response_type=code`,
      { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } },
    )
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(response.headers.get('cache-control')).toBe('no-store')
    const html = await response.text()
    expect(html).toContain('This authorization request was refused')
    expect(html).toContain('<code data-code>invalid_client</code>')
    expect(html).not.toContain('<img src=x')
    expect(html).not.toContain('{"')
  })

  it('refuses the metadata handler for unsafe methods', async () => {
    const response = await fetch(`${h.origin}/.well-known/oauth-authorization-server/oauth`, {
      method: 'POST',
    })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })
})
