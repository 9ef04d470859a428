// The fetch form's own refusals about what it cannot see: an MCP endpoint without allowedHosts, and a
// client-address source that is no function, are configuration errors at startup.
import { describe, expect, it } from 'vitest'
import { createFetchSecurity, type FetchSecurityOptions } from '../src/index.js'

const start = (options: Partial<FetchSecurityOptions>) => () =>
  createFetchSecurity({ mechanisms: [], ...options } as FetchSecurityOptions)

describe('the fetch form at startup', () => {
  it.each([
    ['without allowedHosts', { scheme: 'app' }],
    ['with an empty allowedHosts', { scheme: 'app', allowedHosts: [] }],
  ])('refuses an MCP endpoint %s', (_name, mcp) => {
    expect(start({ mcp })).toThrow(
      expect.objectContaining({
        code: 'mcp.allowed_hosts_required',
        option: 'createFetchSecurity.mcp.allowedHosts',
      }),
    )
  })

  it('serves an MCP endpoint that names its hosts, refusing any other Host', async () => {
    const { fetch } = createFetchSecurity({
      mechanisms: [],
      mcp: { scheme: 'app', allowedHosts: ['app.example'] },
    })
    const ping = (host: string) =>
      fetch(
        new Request(`http://${host}/mcp`, {
          method: 'POST',
          headers: { host, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        }),
      )
    expect((await ping('rebind.example')).status).toBe(403)
    expect((await ping('app.example')).status).toBe(200)
  })

  it('refuses a client-address source that is not a function', () => {
    expect(start({ clientAddress: '203.0.113.7' as never })).toThrow(
      expect.objectContaining({ code: 'request.invalid_client_address_source' }),
    )
  })
})
