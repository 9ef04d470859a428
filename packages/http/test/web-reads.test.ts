import { describe, expect, it } from 'vitest'
import { callerOf, inProcessRequest, readThroughFetch, readWebBody } from '../src/index.js'

const URL_BASE = 'https://api.example/upload'
const limits = { timeoutMs: 2000, maxBytes: 64 }
const decoder = new TextDecoder()
const text = (body: Uint8Array | string) => (typeof body === 'string' ? body : decoder.decode(body))

/** A request body sent chunk by chunk, with no declared length. */
function streamed(chunks: readonly string[]): Request {
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    },
  })
  return new Request(URL_BASE, { method: 'POST', body, duplex: 'half' } as RequestInit)
}

describe('readWebBody', () => {
  it('reads a body that declares its length within the limit whole', async () => {
    const request = new Request(URL_BASE, {
      method: 'POST',
      body: 'hello',
      headers: { 'content-length': '5' },
    })
    const body = await readWebBody(request, 16)
    expect(decoder.decode(body)).toBe('hello')
  })

  it('refuses a declared length over the limit', async () => {
    const request = new Request(URL_BASE, {
      method: 'POST',
      body: 'x'.repeat(32),
      headers: { 'content-length': '32' },
    })
    expect(await readWebBody(request, 16)).toBeUndefined()
  })

  it('refuses a body longer than the length it declares', async () => {
    const request = new Request(URL_BASE, {
      method: 'POST',
      body: 'x'.repeat(40),
      headers: { 'content-length': '8' },
    })
    expect(await readWebBody(request, 16)).toBeUndefined()
  })

  it('reads an undeclared body from its stream up to the limit, and refuses it past the limit', async () => {
    expect(decoder.decode(await readWebBody(streamed(['abc', 'def']), 16))).toBe('abcdef')
    expect(await readWebBody(streamed(['0123456789', '0123456789']), 16)).toBeUndefined()
  })

  it('reads no body as zero bytes', async () => {
    expect(await readWebBody(new Request(URL_BASE), 16)).toEqual(new Uint8Array(0))
  })
})

describe('inProcessRequest', () => {
  const caller = new Request('https://api.example/mcp', {
    method: 'POST',
    body: '{"jsonrpc":"2.0"}',
    headers: {
      authorization: 'Bearer token',
      cookie: 'sid=1',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
      accept: 'application/json, text/event-stream',
      'if-none-match': '"v1"',
    },
  })

  it('is a body-less GET of the path at the caller origin, linked to its caller', async () => {
    const request = inProcessRequest(caller, '/reports/7?view=full')
    expect(request).toBeInstanceOf(Request)
    expect(request.method).toBe('GET')
    expect(request.url).toBe('https://api.example/reports/7?view=full')
    expect(callerOf(request)).toBe(caller)
    expect(callerOf(caller)).toBeUndefined()
    expect(request.body).toBeNull()
    expect(await request.text()).toBe('')
  })

  it("carries the caller's headers but the dropped ones, and Accept: */*", () => {
    const request = inProcessRequest(caller, '/reports/7')
    expect(Object.fromEntries(request.headers)).toEqual({
      accept: '*/*',
      authorization: 'Bearer token',
      cookie: 'sid=1',
    })
  })

  it('behaves as a Request for what a handler may read (signal, clone)', () => {
    const request = inProcessRequest(caller, '/reports/7')
    expect(request.signal.aborted).toBe(false)
    const copy = request.clone()
    expect(copy.url).toBe(request.url)
    expect(copy.headers.get('authorization')).toBe('Bearer token')
  })

  it('resolves the path against the caller origin (dot segments, not another host)', () => {
    expect(inProcessRequest(caller, '/a/../b').url).toBe('https://api.example/b')
  })
})

describe('readThroughFetch', () => {
  const request = () => inProcessRequest(new Request('https://api.example/mcp'), '/config')
  const json = (text: string, headers: Record<string, string> = {}) =>
    new Response(text, { headers: { 'content-type': 'application/json', ...headers } })

  it('reads the answer from its stream when no kept body is known', async () => {
    const read = await readThroughFetch(() => json('{"a":1}'), request(), limits)
    expect(read.status).toBe(200)
    expect(read.contentType).toBe('application/json')
    expect(text(read.body)).toBe('{"a":1}')
  })

  it('takes a kept body instead of the stream, with the same limit', async () => {
    const answer = json('{"a":1}')
    const kept = new Map<Response, string>([[answer, '{"kept":true}']])
    const read = await readThroughFetch(
      () => answer,
      request(),
      limits,
      (response) => kept.get(response),
    )
    // a kept string is handed over as text, never encoded and decoded again
    expect(read.body).toBe('{"kept":true}')
    expect(answer.bodyUsed).toBe(false)

    const large = json('{}')
    const refused = await readThroughFetch(
      () => large,
      request(),
      limits,
      () => 'x'.repeat(65),
    )
    expect(refused.status).toBe(413)
  })

  it('falls back to the stream when the kept body is unknown, and refuses a body over the limit', async () => {
    const read = await readThroughFetch(
      () => json('y'.repeat(65)),
      request(),
      limits,
      () => undefined,
    )
    expect(read.status).toBe(413)
  })

  it('refuses a declared length over the limit unread', async () => {
    const answer = json('{}', { 'content-length': '65' })
    const read = await readThroughFetch(() => answer, request(), limits)
    expect(read.status).toBe(413)
  })

  it('answers 500 for a handler that throws, synchronously or not', async () => {
    const thrown = await readThroughFetch(
      () => {
        throw new Error('boom')
      },
      request(),
      limits,
    )
    expect(thrown.status).toBe(500)
    const rejected = await readThroughFetch(() => Promise.reject(new Error('boom')), request(), limits)
    expect(rejected.status).toBe(500)
  })

  it('answers 504 for a handler later than the timeout', async () => {
    const late = await readThroughFetch(() => new Promise<Response>(() => {}), request(), {
      timeoutMs: 20,
      maxBytes: 64,
    })
    expect(late.status).toBe(504)
  })
})
