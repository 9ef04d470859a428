// Drives the Hono example through `app.request` (the app's own fetch handler, no socket): sign-up and
// sign-in with the session cookie, the default policy, a tenant guard, the body limit, the OpenAPI
// document, and MCP resources read with an API key (and Host: rebind.example refused).
import { describe, expect, it } from 'vitest'
import { apiKeys, app } from './app.js'

const ORIGIN = 'https://app.example'
const json = { 'content-type': 'application/json', origin: ORIGIN, 'sec-fetch-site': 'same-origin' }
let readers = 0

async function signIn(): Promise<{ cookie: string; id: string }> {
  readers += 1
  const username = `reader-${readers}-${Date.now()}`
  const credentials = JSON.stringify({ username, password: 'correct horse battery staple' })
  const registered = await app.request('/auth/register', { method: 'POST', headers: json, body: credentials })
  expect(registered.status).toBe(201)
  const login = await app.request('/auth/login', { method: 'POST', headers: json, body: credentials })
  expect(login.status).toBe(200)
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const me = await app.request('/me', { headers: { cookie } })
  return { cookie, id: ((await me.json()) as { account: string }).account }
}

const rpc = (key: string, method: string, params: object, host = 'app.example') =>
  app.request('/mcp', {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      host,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })

describe('the Hono example', () => {
  it('signs in with the session cookie; the default policy refuses a request without it', async () => {
    const { cookie, id } = await signIn()
    expect(id).not.toBe('')
    const anonymous = await app.request('/me')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('content-type')).toBe('application/problem+json')
    expect(((await anonymous.json()) as { code: string }).code).toBe('authentication.required')
    const featured = await app.request('/featured', { headers: { cookie } })
    expect(await featured.json()).toEqual({ personalised: true })
    expect(await (await app.request('/featured')).json()).toEqual({ personalised: false })
  })

  it('checks the tenant of the path against the resolved grants', async () => {
    const { cookie, id } = await signIn()
    const own = await app.request(`/tenants/team-of-${id}/report`, { headers: { cookie } })
    expect(own.status).toBe(200)
    const other = await app.request('/tenants/team-of-someone-else/report', { headers: { cookie } })
    expect(other.status).toBe(403)
  })

  it('refuses a body over the route limit with 413 naming it, a body that is not JSON, and an unsafe request from another site', async () => {
    const { cookie } = await signIn()
    const headers = { ...json, cookie }
    const small = await app.request('/notes', { method: 'POST', headers, body: '{"text":"hi"}' })
    expect(small.status).toBe(200)
    const big = JSON.stringify({ text: 'x'.repeat(8192) })
    const large = await app.request('/notes', { method: 'POST', headers, body: big })
    expect(large.status).toBe(413)
    expect(((await large.json()) as { detail: string }).detail).toBe('the body must be at most 4096 bytes')
    // c.req.json() on a body that is not JSON: 400, as on Express, never the parser's message
    const malformed = await app.request('/notes', { method: 'POST', headers, body: '{"text": ' })
    expect(malformed.status).toBe(400)
    expect(malformed.headers.get('content-type')).toBe('application/problem+json')
    expect(((await malformed.json()) as { code: string }).code).toBe('request.invalid')
    const crossSite = { ...headers, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }
    const forged = await app.request('/notes', { method: 'POST', headers: crossSite, body: '{}' })
    expect(forged.status).toBe(403)
  })

  it('documents the routes and serves security headers', async () => {
    const document = await app.request('/openapi.json')
    expect(document.status).toBe(200)
    const paths = Object.keys(((await document.json()) as { paths: object }).paths)
    expect(paths).toEqual(expect.arrayContaining(['/me', '/tenants/{tenantId}/report', '/mcp', '/plans']))
    expect(document.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('publishes the marked routes over MCP and reads them with an API key', async () => {
    const { value } = await apiKeys.issue({ ownerId: 'svc-agent' })
    const listed = await rpc(value, 'resources/list', {})
    expect(listed.status).toBe(200)
    const { result } = (await listed.json()) as { result: { resources: { uri: string }[] } }
    expect(result.resources.map((resource) => resource.uri)).toContain('billing://plans')
    const read = await rpc(value, 'resources/read', { uri: 'billing://plans' })
    const contents = ((await read.json()) as { result: { contents: { text: string }[] } }).result.contents
    expect(JSON.parse(contents[0]?.text ?? '')).toEqual([{ id: 'team', seats: 10 }])
    const refused = await rpc('billing_not-a-key', 'resources/list', {})
    expect(refused.status).toBe(401)
  })

  it('refuses Host: rebind.example at the MCP endpoint, before authentication', async () => {
    const { value } = await apiKeys.issue({ ownerId: 'svc-agent' })
    const rebound = await rpc(value, 'resources/list', {}, 'rebind.example')
    expect(rebound.status).toBe(403)
    expect(((await rebound.json()) as { error: { message: string } }).error.message).toBe('Host not allowed')
    expect((await rpc(value, 'resources/list', {}, 'localhost:3000')).status).toBe(200)
  })
})
