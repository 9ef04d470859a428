import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import {
  BODY_TOO_LARGE_CODE,
  BODY_TOO_LARGE_STATUS,
  endpointChallenges,
  HttpProblem,
  originRefusal,
  parseRequestBody,
  prefersJson,
  problemFor,
  readRequestBody,
  renderProblem,
} from '../src/index.js'

describe('content negotiation between a redirect and JSON', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['text/html,application/xhtml+xml,*/*;q=0.8', false],
    ['application/json', true],
    ['application/json, text/html', true],
    ['text/html, application/json', false],
    ['text/html;q=0.5, application/json', true],
    ['application/json;q=0, */*', false],
    ['application/*', true],
  ])('Accept %s prefers JSON: %s', (accept, expected) => {
    expect(prefersJson(accept)).toBe(expected)
  })
})

describe('problem rendering', () => {
  it('is problem+json, no-store, with Retry-After rounded up, and a 503 never without one', () => {
    const rendered = renderProblem({ status: 503, code: 'x.down', detail: 'Down', retryAfterSeconds: 1.2 })
    expect(rendered.headers).toMatchObject({
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      'Retry-After': '2',
    })
    expect(JSON.parse(rendered.body)).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      code: 'x.down',
      detail: 'Down',
    })
    expect(renderProblem({ status: 503, code: 'x', retryAfterSeconds: -1 }).headers['Retry-After']).toBe('5')
  })

  it('never renders the message of an unknown error', () => {
    const problem = problemFor(new Error('password=hunter2'))
    expect(problem).toEqual({ status: 500, code: 'internal.error', detail: 'Internal server error' })
  })

  it('renders an HttpProblem with its own headers', () => {
    const problem = problemFor(new HttpProblem({ status: 404, code: 'a.missing', headers: { 'X-A': '1' } }))
    expect(problem).toMatchObject({ status: 404, code: 'a.missing', headers: { 'X-A': '1' } })
  })
})

describe('request bodies', () => {
  const stream = (chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk)))

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const body = stream(['{}'])
    await expect(
      readRequestBody(body, { contentLength: '999999', contentType: 'application/json' }, 16),
    ).rejects.toMatchObject({ status: BODY_TOO_LARGE_STATUS, code: BODY_TOO_LARGE_CODE })
  })

  it('refuses a body that grows past the limit without a Content-Length', async () => {
    const body = stream(['{"a":"', 'x'.repeat(40), '"}'])
    await expect(
      readRequestBody(body, { contentLength: undefined, contentType: 'application/json' }, 16),
    ).rejects.toMatchObject({ code: BODY_TOO_LARGE_CODE })
  })

  it.each([
    ['{"a":', 'application/json', 'request.invalid_json'],
    ['a=1&a=2', 'application/x-www-form-urlencoded', 'request.invalid_body'],
    ['hello', 'text/plain', 'request.unsupported_media_type'],
  ])('refuses %s as %s with %s', (text, type, code) => {
    expect(() => parseRequestBody(Buffer.from(text), type)).toThrow(expect.objectContaining({ code }))
  })

  it('refuses bytes that are not UTF-8', () => {
    expect(() => parseRequestBody(Buffer.from([0x7b, 0xff, 0x7d]), 'application/json')).toThrow(
      expect.objectContaining({ code: 'request.invalid_body' }),
    )
  })

  it('parses +json media types and forms; an empty body is undefined', () => {
    expect(parseRequestBody(Buffer.from('{"a":1}'), 'application/merge-patch+json; charset=utf-8')).toEqual({
      a: 1,
    })
    expect(parseRequestBody(Buffer.from('a=1'), 'application/x-www-form-urlencoded')).toEqual({ a: '1' })
    expect(parseRequestBody(Buffer.alloc(0), 'text/plain')).toBeUndefined()
  })
})

describe('MCP origin and host checks', () => {
  const loopback = { localAddress: '127.0.0.1', trustProxy: false }

  it('refuses a foreign Host on a loopback server (DNS rebinding) unless a proxy is trusted', () => {
    expect(originRefusal({ ...loopback, host: 'evil.example', origin: undefined }, {})).toBe(
      'Host not allowed',
    )
    expect(originRefusal({ ...loopback, trustProxy: true, host: 'api.example', origin: undefined }, {})).toBe(
      undefined,
    )
  })

  it('fails closed without a socket: no allowedHosts and no loopback client address is a refusal', () => {
    const unseen = { localAddress: undefined, trustProxy: false, origin: undefined }
    const uncheckable = expect.stringContaining('needs allowedHosts')
    for (const peerAddress of [undefined, '203.0.113.7', '10.0.0.2', '2001:db8::1']) {
      for (const host of ['rebind.example', 'localhost:3000', '127.0.0.1']) {
        expect(originRefusal({ ...unseen, host, socketless: { peerAddress } }, {})).toEqual(uncheckable)
      }
    }
    // a loopback client came over loopback: the loopback check runs
    for (const peerAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const socketless = { peerAddress }
      expect(originRefusal({ ...unseen, host: 'localhost:3000', socketless }, {})).toBeUndefined()
      expect(originRefusal({ ...unseen, host: '[::1]:3000', socketless }, {})).toBeUndefined()
      expect(originRefusal({ ...unseen, host: 'rebind.example', socketless }, {})).toBe('Host not allowed')
    }
    // allowedHosts decide alone; a trusted proxy keeps its meaning
    const socketless = { peerAddress: undefined }
    expect(
      originRefusal({ ...unseen, host: 'app.example', socketless }, { allowedHosts: ['app.example'] }),
    ).toBe(undefined)
    expect(
      originRefusal({ ...unseen, host: 'rebind.example', socketless }, { allowedHosts: ['app.example'] }),
    ).toBe('Host not allowed')
    expect(
      originRefusal({ ...unseen, trustProxy: true, host: 'app.example', socketless }, {}),
    ).toBeUndefined()
  })

  it("accepts an Origin naming the request's own host or an allowed origin, refuses any other", () => {
    const input = { ...loopback, host: '127.0.0.1:3000' }
    expect(originRefusal({ ...input, origin: 'http://127.0.0.1:3000' }, {})).toBeUndefined()
    expect(originRefusal({ ...input, origin: 'https://evil.example' }, {})).toBe('Origin not allowed')
    expect(originRefusal({ ...input, origin: 'null' }, {})).toBe('Origin not allowed')
    expect(
      originRefusal({ ...input, origin: 'https://app.example' }, { allowedOrigins: ['https://app.example'] }),
    ).toBeUndefined()
  })
})

describe('MCP endpoint challenges', () => {
  const metadata = 'https://api.example/.well-known/oauth-protected-resource/mcp'

  it('adds resource_metadata to a Bearer challenge of a 401, or a Bearer challenge beside other schemes', () => {
    expect(endpointChallenges(401, ['Bearer'], metadata, [])).toEqual([
      `Bearer resource_metadata="${metadata}"`,
    ])
    expect(endpointChallenges(401, ['Basic realm="x"'], metadata, [])).toEqual([
      'Basic realm="x"',
      `Bearer resource_metadata="${metadata}"`,
    ])
  })

  it('answers a 403 with insufficient_scope naming the scopes, and leaves other statuses alone', () => {
    expect(endpointChallenges(403, [], undefined, ['a:read', 'b:read'])).toEqual([
      'Bearer error="insufficient_scope", scope="a:read b:read"',
    ])
    expect(endpointChallenges(200, [], metadata, [])).toBeUndefined()
  })
})
