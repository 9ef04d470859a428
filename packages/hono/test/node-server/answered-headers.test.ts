import { randomBytes } from 'node:crypto'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { anonymous, required } from '@portcullis/core/policy'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { listen } from '../conformance/hono-app.js'

// On `@hono/node-server` the header baseline and `Cache-Control: no-store` (when the handler set no
// `Cache-Control` itself) are written into the plain header record of its lightweight response: every way a handler answers keeps its own headers, its
// cookies and the server's default content type, on GET and HEAD.
const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'test',
})
const security = createSecurity({ mechanisms: [apiKey({ service: keys })] })
const app = new Hono()
app.use(security.middleware)
const open = () => security.route({ auth: anonymous() })
app.get('/json', open(), (c) => c.json({ a: 1 }))
app.get('/own-header', open(), (c) => {
  c.header('x-one', '1')
  return c.json({ a: 1 })
})
app.get('/cookies', open(), (c) => {
  c.header('set-cookie', 'a=1')
  c.header('set-cookie', 'b=2', { append: true })
  return c.text('hi')
})
app.get('/override', open(), (c) => {
  c.header('X-Frame-Options', 'SAMEORIGIN')
  return c.body('raw')
})
app.get('/raw', open(), () => new Response('plain', { headers: { 'Referrer-Policy': 'origin' } }))
app.get('/cached', security.route({ auth: required('api-key') }), (c) => {
  c.header('cache-control', 'public, max-age=60')
  return c.json({ a: 1 })
})
security.ready(app)

let url = ''
let close: () => Promise<void> = async () => {}
let key = ''
beforeAll(async () => {
  ;({ url, close } = await listen(app))
  key = (await keys.issue({ ownerId: 'svc-test' })).value
})
afterAll(() => close())

async function answer(path: string, init: RequestInit = {}) {
  const response = await fetch(`${url}${path}`, init)
  return { response, text: await response.text() }
}

describe('the header baseline on answered responses', () => {
  it.each(['GET', 'HEAD'])('is added to a c.json answer (%s), with its content type', async (method) => {
    const { response, text } = await answer('/json', { method })
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(text).toBe(method === 'GET' ? '{"a":1}' : '')
  })

  it('keeps the headers a handler set with c.header', async () => {
    const { response } = await answer('/own-header')
    expect(response.headers.get('x-one')).toBe('1')
    expect(response.headers.get('strict-transport-security')).toContain('max-age=')
  })

  it.each(['GET', 'HEAD'])('keeps every Set-Cookie (%s)', async (method) => {
    const { response } = await answer('/cookies', { method })
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('never replaces a header the handler set, whatever its case', async () => {
    const { response, text } = await answer('/override')
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(text).toBe('raw')
  })

  it("keeps a raw Response's own headers and the server's default content type", async () => {
    const { response, text } = await answer('/raw')
    expect(response.headers.get('referrer-policy')).toBe('origin')
    expect(response.headers.get('content-type')).toBe('text/plain; charset=UTF-8')
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    expect(text).toBe('plain')
  })

  it('keeps the cache header the handler of an authenticated route set (a handler may override no-store)', async () => {
    const { response, text } = await answer('/cached', { headers: { 'x-api-key': key } })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('public, max-age=60')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(text).toBe('{"a":1}')
  })
})
