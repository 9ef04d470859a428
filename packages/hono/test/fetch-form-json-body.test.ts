// The fetch form's handlers read their body with the Web API (`await request.json()`): a body that is not
// JSON is the client's mistake, 400 problem+json `request.invalid` without the parser's message, never
// a 500. Served by @hono/node-server on loopback, as a Node deployment of the fetch form runs; the
// request stays a real Request, and a SyntaxError of the handler's own making is still a 500.

import type { Server } from 'node:http'
import { serve } from '@hono/node-server'
import { anonymous } from '@portcullis/core/policy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchSecurity } from '../src/index.js'

const portcullis = createFetchSecurity({
  mechanisms: [],
  openapi: { info: { title: 'Bodies', version: '1' } },
})
let runs = 0
portcullis.route('POST', '/notes', { auth: anonymous() }, async (request) => {
  const body = await request.json()
  runs += 1
  return Response.json({ received: body })
})
portcullis.route('POST', '/copied', { auth: anonymous() }, async (request) => {
  // still a Request: the constructor and instanceof accept it
  const copy = new Request(request)
  return Response.json({ isRequest: request instanceof Request, received: await copy.json() })
})
portcullis.route('POST', '/own-parse', { auth: anonymous() }, async () => {
  JSON.parse('{"stored": ')
  return Response.json({})
})

let url = ''
let server: Server | undefined
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: portcullis.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      url = `http://127.0.0.1:${info.port}`
      resolve()
    }) as Server
  })
})
afterAll(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => server?.close(() => resolve()))
})

const post = (path: string, body: string) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

describe('request.json() in a fetch-form handler', () => {
  it('answers a body that is not JSON with 400 problem+json, without the parser message', async () => {
    const parsed = await post('/notes', '{"note":"hi"}')
    expect(parsed.status).toBe(200)
    expect(await parsed.json()).toEqual({ received: { note: 'hi' } })
    for (const body of ['{"note": ', 'note=hi', '{"note":"hi"}}', '']) {
      const refused = await post('/notes', body)
      expect(refused.status, body).toBe(400)
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const text = await refused.text()
      expect(JSON.parse(text)).toMatchObject({ status: 400, code: 'request.invalid' })
      expect(text).not.toMatch(/unexpected|position|syntax|token|note|hi"/i)
    }
    expect(runs).toBe(1)
  })

  it('keeps the request a real Request, and a SyntaxError of the handler itself a 500', async () => {
    const copied = await post('/copied', '{"n":1}')
    expect(await copied.json()).toEqual({ isRequest: true, received: { n: 1 } })
    const own = await post('/own-parse', '{}')
    expect(own.status).toBe(500)
    expect(await own.json()).toMatchObject({ status: 500 })
  })
})
