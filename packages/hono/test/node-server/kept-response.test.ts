// The fast paths of the header baseline and of MCP reads read what `@hono/node-server`'s lightweight
// `Response` keeps as given. Everything falls back to the `Response` API when it is not recognised, so an
// upgrade of the server that changes it stays correct but slower: these tests make that change visible.
import { getRequestListener } from '@hono/node-server'
import { describe, expect, it } from 'vitest'
import { keptBody, keptResponse } from '../../src/node-server/kept-response.js'

// as `serve()` does: the server's lightweight Request and Response become the global ones
getRequestListener(() => new Response(null))

describe("@hono/node-server's lightweight Response", () => {
  it('is recognised with the status, body and headers it was made with', () => {
    const response = new Response('{"a":1}', { status: 201, headers: { 'content-type': 'application/json' } })
    expect(keptResponse(response)).toEqual({
      status: 201,
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    })
  })

  it('is no longer taken as given once its body was read as a stream', async () => {
    const response = new Response('streamed')
    expect(await response.text()).toBe('streamed')
    expect(keptBody(response)).toBeUndefined()
  })

  it('leaves a stream body to the Response API', () => {
    const response = new Response(new ReadableStream({ start: (controller) => controller.close() }))
    expect(keptBody(response)).toBeUndefined()
  })
})
