// Drives the fetch-form example with plain `Request`s, as Bun, Deno or Next.js hand them over.
import { describe, expect, it } from 'vitest'
import { apiKeys, portcullis, readNote, saveNote } from './fetch-form.js'

// A runtime's request carries the Host header the client sent.
const at = (path: string, init: RequestInit = {}, host = 'notes.example') =>
  new Request(`http://${host}${path}`, { ...init, headers: { host, ...(init.headers as object) } })

describe('the fetch-form example', () => {
  it('serves a secured route through its own handler and through fetch, with the context as an argument', async () => {
    const { value } = await apiKeys.issue({ ownerId: 'svc' })
    const headers = { 'x-api-key': value }
    const own = await readNote(at('/api/tenants/team-of-svc/notes/7', { headers }))
    expect(own.status).toBe(200)
    expect(await own.json()).toEqual({ id: '7', reader: 'svc' })
    const other = await portcullis.fetch(at('/api/tenants/team-of-another/notes/7', { headers }))
    expect(other.status).toBe(403)
    const anonymous = await portcullis.fetch(at('/api/tenants/team-of-svc/notes/7'))
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('content-type')).toBe('application/problem+json')
  })

  it('reads bodies with a limit and answers unknown paths with a problem', async () => {
    const { value } = await apiKeys.issue({ ownerId: 'svc' })
    const post = (body: string) =>
      saveNote(
        at('/api/notes', {
          method: 'POST',
          headers: { 'x-api-key': value, 'content-type': 'application/json' },
          body,
        }),
      )
    expect((await post('{"text":"hi"}')).status).toBe(201)
    const large = await post(JSON.stringify({ text: 'x'.repeat(5000) }))
    expect(large.status).toBe(413)
    expect(((await large.json()) as { detail: string }).detail).toBe('the body must be at most 4096 bytes')
    const missing = await portcullis.fetch(at('/api/nothing-here'))
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { code: string }).code).toBe('request.not_found')
  })

  it('reads the marked route over MCP in-process with the caller API key', async () => {
    const { value } = await apiKeys.issue({ ownerId: 'svc' })
    const read = await portcullis.fetch(
      at('/api/mcp', {
        method: 'POST',
        headers: {
          'x-api-key': value,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'resources/read',
          params: { uri: 'notes://tenants/team-of-svc/notes/3' },
        }),
      }),
    )
    const body = (await read.json()) as { result?: { contents: { text: string }[] }; error?: unknown }
    expect(body.error).toBeUndefined()
    expect(JSON.parse(body.result?.contents[0]?.text ?? '')).toEqual({ id: '3', reader: 'svc' })
  })

  it('refuses an MCP request for a host outside allowedHosts (DNS rebinding)', async () => {
    const { value } = await apiKeys.issue({ ownerId: 'svc' })
    const init = {
      method: 'POST',
      headers: { 'x-api-key': value, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    }
    expect((await portcullis.fetch(at('/api/mcp', init, 'rebind.example'))).status).toBe(403)
    expect((await portcullis.fetch(at('/api/mcp', init, 'localhost:3000'))).status).toBe(200)
  })
})
