import { describe, expect, it } from 'vitest'
import { type ConsentView, consentBody, consentTitle, renderDefaultConsent } from '../../src/index.js'

const view = (client: Partial<ConsentView['client']>, overrides: Partial<ConsentView> = {}): ConsentView => ({
  uid: 'uid-1',
  action: '/oauth/interaction/uid-1',
  csrfToken: 'token',
  client: { id: 'Xq3vR8kT2pLmN0', name: undefined, idHost: undefined, redirectHost: undefined, ...client },
  accountId: 'demo-alice',
  accountName: 'Alice Archer',
  scopes: [{ name: 'resources:read', description: 'Read the resources' }],
  grantedScopes: [],
  resources: ['https://app.example/mcp'],
  ...overrides,
})

describe('the consent page content', () => {
  it('headlines a registered client by its name and the host of its redirect URI, never its random id', () => {
    const registered = view({ name: 'Cursor', redirectHost: 'localhost:7777' })
    expect(consentTitle(registered)).toBe('Connect Cursor?')
    const html = consentBody(registered)
    expect(html).toContain('data-client-name>Cursor<')
    expect(html).toContain('data-unverified')
    expect(html).toContain('data-client-host>localhost:7777<')
    expect(html).not.toContain('Xq3vR8kT2pLmN0')
  })

  it('headlines a client without a name by its host', () => {
    const nameless = view({ idHost: 'agent.example' })
    expect(consentTitle(nameless)).toBe('Connect an application from agent.example?')
    expect(consentBody(nameless)).toContain('data-client-host>agent.example<')
  })

  it('names the account as its owner knows it, and escapes every value', () => {
    const hostile = view(
      { name: '<script>alert(1)</script>', idHost: 'x.example' },
      { accountName: '<b>Mallory</b>', scopes: [{ name: '"><img src=x>', description: '<i>d</i>' }] },
    )
    const html = renderDefaultConsent(hostile)
    expect(html).toContain('data-account>&lt;b&gt;Mallory&lt;/b&gt;<')
    expect(html).not.toContain('demo-alice')
    expect(html).not.toMatch(/<script>|<img src=x>|<i>d<\/i>|<b>Mallory/)
    expect(html).toContain('<title>Connect &lt;script&gt;alert(1)&lt;/script&gt;?</title>')
  })
})
