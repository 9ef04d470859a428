// The Web-standard path of the HTTP layer, over real `Request`, `Response`, `Headers` and `ReadableStream`
// objects: bodies with limits, the credential source, answers and problems, in-process reads.
import { describe, expect, it } from 'vitest'
import { IN_PROCESS_DROPPED_HEADERS } from '../src/mcp/in-process-headers.js'
import { HttpProblem } from '../src/problem/index.js'
import {
  answerResponse,
  callerOf,
  inProcessRequest,
  pathOf,
  problemResponse,
  readThroughFetch,
  readWebBody,
  readWebRequestBody,
  WebCredentialSource,
} from '../src/web/index.js'

const ORIGIN = 'https://app.example'
const encoder = new TextEncoder()

/**
 * A byte stream that makes a chunk only when its reader asks for one (`highWaterMark: 0`), and records
 * how many it made and whether it was cancelled: a reader that stops early leaves the rest unmade.
 */
function meteredStream(chunk: Uint8Array, count: number) {
  const meter = { pulled: 0, cancelled: false }
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (meter.pulled === count) {
          controller.close()
          return
        }
        meter.pulled += 1
        controller.enqueue(chunk)
      },
      cancel() {
        meter.cancelled = true
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, meter }
}

/** The problem a promise rejected with. */
async function problemOf(promise: Promise<unknown>): Promise<HttpProblem> {
  try {
    await promise
  } catch (error) {
    if (error instanceof HttpProblem) return error
    throw error
  }
  throw new Error('no problem was raised')
}

function post(body: NonNullable<ConstructorParameters<typeof Response>[0]> | null, type?: string): Request {
  return new Request(`${ORIGIN}/submit`, {
    method: 'POST',
    body,
    ...(type === undefined ? {} : { headers: { 'content-type': type } }),
  })
}

const decoded = (bytes: Uint8Array | string | undefined) =>
  bytes === undefined || typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes)

describe('readWebBody', () => {
  it('refuses a declared Content-Length over the limit before reading a byte, and cancels the stream', async () => {
    const { stream, meter } = meteredStream(encoder.encode('x'.repeat(1024)), 100)
    const body = await readWebBody(
      { headers: new Headers({ 'content-length': '102400' }), body: stream },
      1024,
    )
    expect(body).toBeUndefined()
    expect(meter.pulled).toBe(0)
    expect(meter.cancelled).toBe(true)
  })

  it('cancels a streamed body as soon as it grows past the limit, never reading it to the end', async () => {
    const { stream, meter } = meteredStream(encoder.encode('x'.repeat(1000)), 10_000)
    // no Content-Length: chunked, or a client that lies about nothing because it says nothing
    const body = await readWebBody({ headers: new Headers(), body: stream }, 4096)
    expect(body).toBeUndefined()
    expect(meter.cancelled).toBe(true)
    expect(meter.pulled).toBe(5)
  })

  it('cuts a body longer than its declared Content-Length at the limit', async () => {
    const { stream, meter } = meteredStream(encoder.encode('x'.repeat(1000)), 10_000)
    const body = await readWebBody({ headers: new Headers({ 'content-length': '10' }), body: stream }, 4096)
    expect(body).toBeUndefined()
    expect(meter.cancelled).toBe(true)
    expect(meter.pulled).toBeLessThan(10)
  })

  it('reads a body of exactly the limit, in several chunks, byte for byte; one byte more is refused', async () => {
    const { stream } = meteredStream(encoder.encode('abcd'), 4)
    expect(decoded(await readWebBody({ headers: new Headers(), body: stream }, 16))).toBe('abcd'.repeat(4))
    expect(decoded(await readWebBody(post('y'.repeat(16)), 16))).toBe('y'.repeat(16))
    expect(await readWebBody(post('y'.repeat(17)), 16)).toBeUndefined()
  })

  it('reads no body as zero bytes', async () => {
    expect(await readWebBody(new Request(`${ORIGIN}/`), 16)).toEqual(new Uint8Array(0))
    expect(await readWebBody(post(null), 0)).toEqual(new Uint8Array(0))
    expect(await readWebBody(post(''), 0)).toEqual(new Uint8Array(0))
  })

  it('reads a Response body too (what in-process reads use)', async () => {
    expect(decoded(await readWebBody(new Response('answer'), 6))).toBe('answer')
    expect(await readWebBody(new Response('answer'), 5)).toBeUndefined()
  })
})

describe('readWebRequestBody', () => {
  it('parses JSON and +json', async () => {
    expect(await readWebRequestBody(post('{"a":[1,2]}', 'application/json; charset=utf-8'), 64)).toEqual({
      a: [1, 2],
    })
    expect(await readWebRequestBody(post('{"op":"x"}', 'application/merge-patch+json'), 64)).toEqual({
      op: 'x',
    })
  })

  it('parses a form into plain fields', async () => {
    const form = await readWebRequestBody(
      post('username=alice&password=p%40ss+word', 'application/x-www-form-urlencoded'),
      64,
    )
    expect(form).toEqual({ username: 'alice', password: 'p@ss word' })
    expect(Object.getPrototypeOf(form)).toBeNull()
    // a URLSearchParams body declares the form type itself
    expect(await readWebRequestBody(post(new URLSearchParams({ a: '1' })), 64)).toEqual({ a: '1' })
  })

  it('refuses a repeated form field (400), naming no field', async () => {
    const problem = await problemOf(
      readWebRequestBody(post('role=user&role=admin', 'application/x-www-form-urlencoded'), 64),
    )
    expect(problem.status).toBe(400)
    expect(problem.code).toBe('request.invalid_body')
    expect(problem.detail).not.toContain('role')
  })

  it('refuses malformed JSON (400), an unsupported type (415), a body that is not UTF-8 (400)', async () => {
    const bad = await problemOf(readWebRequestBody(post('{"a":', 'application/json'), 64))
    expect([bad.status, bad.code]).toEqual([400, 'request.invalid_json'])
    const text = await problemOf(readWebRequestBody(post('a=1', 'text/plain'), 64))
    expect([text.status, text.code]).toEqual([415, 'request.unsupported_media_type'])
    const untyped = await problemOf(readWebRequestBody(post(new Uint8Array([1, 2])), 64))
    expect(untyped.status).toBe(415)
    const latin1 = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]) // {"n":"é"} in Latin-1
    const notUtf8 = await problemOf(readWebRequestBody(post(latin1, 'application/json'), 64))
    expect([notUtf8.status, notUtf8.code]).toEqual([400, 'request.invalid_body'])
    const form = await problemOf(readWebRequestBody(post(latin1, 'application/x-www-form-urlencoded'), 64))
    expect(form.code).toBe('request.invalid_body')
  })

  it('refuses a body over the limit with the 413 naming it, before parsing; no body is undefined', async () => {
    const problem = await problemOf(
      readWebRequestBody(post(`{"a":"${'x'.repeat(64)}"}`, 'application/json'), 32),
    )
    expect(problem.status).toBe(413)
    expect(problem.code).toBe('request.body_too_large')
    expect(problem.detail).toBe('the body must be at most 32 bytes')
    expect(await readWebRequestBody(post(null, 'application/json'), 32)).toBeUndefined()
  })
})

describe('WebCredentialSource', () => {
  it('presents a duplicated Authorization joined with ", " (malformed for every mechanism)', () => {
    const headers = new Headers()
    headers.append('Authorization', 'Bearer alice-token')
    headers.append('authorization', 'Bearer mallory-token')
    const source = new WebCredentialSource(new Request(`${ORIGIN}/`, { headers }))
    expect(source.header('authorization')).toBe('Bearer alice-token, Bearer mallory-token')
    expect(source.header('AUTHORIZATION')).toBe('Bearer alice-token, Bearer mallory-token')
    expect(source.header('x-api-key')).toBeUndefined()
  })

  it('reads cookies first-wins, raw values, and no cookie at all', () => {
    const source = new WebCredentialSource(
      new Request(`${ORIGIN}/`, {
        headers: { cookie: 'sid=first; theme=dark; sid=second; token=a=b=; =bare' },
      }),
    )
    expect(source.cookie('sid')).toBe('first')
    expect(source.cookie('theme')).toBe('dark')
    expect(source.cookie('token')).toBe('a=b=')
    expect(source.cookie('missing')).toBeUndefined()
    expect(new WebCredentialSource(new Request(`${ORIGIN}/`)).cookie('sid')).toBeUndefined()
  })

  it('has the method and the path of the request, without query or fragment', () => {
    const source = new WebCredentialSource(
      new Request(`${ORIGIN}/api/orders/7?expand=items#top`, { method: 'DELETE' }),
    )
    expect(source.method).toBe('DELETE')
    expect(source.path).toBe('/api/orders/7')
    expect(new WebCredentialSource(new Request(ORIGIN)).path).toBe('/')
  })

  it('works out the path of absolute and origin-form URLs', () => {
    expect(pathOf('https://app.example/a/b?x=1#h')).toBe('/a/b')
    expect(pathOf('https://app.example:8443/a/b#h?x')).toBe('/a/b')
    expect(pathOf('https://app.example')).toBe('/')
    expect(pathOf('/a/b?x=/y')).toBe('/a/b')
    expect(pathOf('/a/b#/y?z')).toBe('/a/b')
    expect(pathOf('/')).toBe('/')
    // a query or fragment right after the authority holds no path, even when it holds a `/`
    expect(pathOf('https://app.example?next=/admin')).toBe('/')
    expect(pathOf('https://app.example#/admin')).toBe('/')
  })
})

describe('answerResponse', () => {
  it('sends every Set-Cookie, in order: the ones added while handling, the answer’s, its header', async () => {
    const response = answerResponse(
      {
        status: 201,
        setCookies: ['c=3; Path=/', 'd=4; Path=/'],
        headers: { 'Set-Cookie': 'e=5', 'X-Trace': 'abc' },
        json: { created: true },
      },
      ['a=1; HttpOnly', 'b=2; HttpOnly'],
    )
    expect(response.status).toBe(201)
    expect(response.headers.getSetCookie()).toEqual([
      'a=1; HttpOnly',
      'b=2; HttpOnly',
      'c=3; Path=/',
      'd=4; Path=/',
      'e=5',
    ])
    expect(response.headers.get('x-trace')).toBe('abc')
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await response.json()).toEqual({ created: true })
  })

  it('keeps the answer’s own content type; no JSON is no body', async () => {
    const typed = answerResponse({
      status: 200,
      headers: { 'Content-Type': 'application/jwk-set+json' },
      json: [],
    })
    expect(typed.headers.get('content-type')).toBe('application/jwk-set+json')
    const redirect = answerResponse({
      status: 303,
      headers: { Location: '/home', 'Cache-Control': 'no-store' },
    })
    expect(redirect.status).toBe(303)
    expect(redirect.body).toBeNull()
    expect(redirect.headers.get('location')).toBe('/home')
    expect(redirect.headers.get('cache-control')).toBe('no-store')
    expect(redirect.headers.get('content-type')).toBeNull()
  })
})

describe('problemResponse', () => {
  it('is problem+json, no-store, with every Set-Cookie in order and the extra headers', async () => {
    const response = problemResponse(
      { status: 401, code: 'step-up.required', detail: 'Step-up required' },
      ['spent=; Max-Age=0', 'other=; Max-Age=0'],
      { 'WWW-Authenticate': 'Bearer realm="api"' },
    )
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.getSetCookie()).toEqual(['spent=; Max-Age=0', 'other=; Max-Age=0'])
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    expect(response.headers.get('retry-after')).toBeNull()
    expect(await response.json()).toEqual({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      code: 'step-up.required',
      detail: 'Step-up required',
    })
  })

  it('cannot be made cacheable or retyped by the extra headers', () => {
    const response = problemResponse({ status: 400, code: 'x.y' }, [], {
      'Cache-Control': 'public, max-age=3600',
      'content-type': 'text/html',
    })
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('content-type')).toBe('application/problem+json')
  })

  it('carries Retry-After on every 429 and 503: the given seconds rounded up, else the default', () => {
    expect(problemResponse({ status: 429, code: 'rate.limited' }).headers.get('retry-after')).toBe('60')
    expect(problemResponse({ status: 503, code: 'down' }).headers.get('retry-after')).toBe('5')
    expect(
      problemResponse({ status: 429, code: 'rate.limited', retryAfterSeconds: 12.2 }).headers.get(
        'retry-after',
      ),
    ).toBe('13')
    expect(
      problemResponse({ status: 503, code: 'down', retryAfterSeconds: 0 }).headers.get('retry-after'),
    ).toBe('0')
    expect(problemResponse({ status: 500, code: 'internal.error' }).headers.get('retry-after')).toBeNull()
  })
})

describe('readThroughFetch', () => {
  const limits = { timeoutMs: 200, maxBytes: 64 }
  const request = () => new Request(`${ORIGIN}/catalog`)
  const problemBody = (body: Uint8Array | string) =>
    JSON.parse(decoded(body) ?? '') as Record<string, unknown>

  it('captures status, content type and body', async () => {
    const read = await readThroughFetch(
      () => new Response('{"plans":[]}', { status: 203, headers: { 'content-type': 'application/json' } }),
      request(),
      limits,
    )
    expect(read.status).toBe(203)
    expect(read.contentType).toBe('application/json')
    expect(decoded(read.body)).toBe('{"plans":[]}')
  })

  it('answers 504 when the handler never resolves', async () => {
    const read = await readThroughFetch(() => new Promise<Response>(() => {}), request(), {
      ...limits,
      timeoutMs: 30,
    })
    expect(read.status).toBe(504)
    expect(read.contentType).toBe('application/problem+json')
    expect(problemBody(read.body)).toEqual({ type: 'about:blank', title: 'Gateway Timeout', status: 504 })
  })

  it('cancels the body of an answer that came too late, never reading it', async () => {
    const { stream, meter } = meteredStream(encoder.encode('late'), 1000)
    let answered: () => void = () => {}
    const late = new Promise<void>((resolve) => {
      answered = resolve
    })
    const read = await readThroughFetch(
      () =>
        new Promise<Response>((resolve) =>
          setTimeout(() => {
            resolve(new Response(stream))
            answered()
          }, 60),
        ),
      request(),
      { ...limits, timeoutMs: 20 },
    )
    expect(read.status).toBe(504)
    await late
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(meter.cancelled).toBe(true)
    expect(meter.pulled).toBe(0)
  })

  it('answers 504 and cancels a body that stalls after the headers', async () => {
    let cancelled = false
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('partial'))
      },
      cancel() {
        cancelled = true
      },
    })
    const read = await readThroughFetch(() => new Response(stalled), request(), { ...limits, timeoutMs: 30 })
    expect(read.status).toBe(504)
    expect(cancelled).toBe(true)
  })

  it('answers 413 for a body over maxBytes, cancelling it', async () => {
    const { stream, meter } = meteredStream(encoder.encode('x'.repeat(32)), 1000)
    const read = await readThroughFetch(() => new Response(stream), request(), limits)
    expect(read.status).toBe(413)
    expect(problemBody(read.body)).toMatchObject({ status: 413, title: 'Content Too Large' })
    expect(meter.cancelled).toBe(true)
    expect(meter.pulled).toBe(3)
  })

  it('answers 500 for a throw, synchronous or not, never with its message', async () => {
    const secret = 'postgres://app:hunter2@db/prod'
    for (const handler of [
      () => {
        throw new Error(secret)
      },
      async () => {
        throw new Error(secret)
      },
    ]) {
      const read = await readThroughFetch(handler, request(), limits)
      expect(read.status).toBe(500)
      expect(decoded(read.body)).not.toContain('hunter2')
      expect(problemBody(read.body)).toEqual({
        type: 'about:blank',
        title: 'Resource read failed',
        status: 500,
      })
    }
  })

  it('keeps the status a thrown error carries (status or statusCode, 4xx or 5xx only)', async () => {
    const thrown = (error: object) => async () => {
      throw Object.assign(new Error('detail'), error)
    }
    expect((await readThroughFetch(thrown({ status: 403 }), request(), limits)).status).toBe(403)
    expect((await readThroughFetch(thrown({ statusCode: 404 }), request(), limits)).status).toBe(404)
    expect((await readThroughFetch(thrown({ status: 502 }), request(), limits)).status).toBe(502)
    expect((await readThroughFetch(thrown({ status: 200 }), request(), limits)).status).toBe(500)
    expect((await readThroughFetch(thrown({ status: '403' }), request(), limits)).status).toBe(500)
  })
})

describe('inProcessRequest', () => {
  const caller = () => {
    const headers = new Headers({
      authorization: 'Bearer alice-token',
      cookie: 'sid=s1; theme=dark',
      'x-api-key': 'alice-key',
      dpop: 'proof',
      'user-agent': 'agent/1',
      'x-forwarded-for': '203.0.113.9',
      accept: 'application/json, text/event-stream',
      'accept-encoding': 'gzip',
      'content-type': 'application/json',
      'mcp-session-id': 'session-1',
      'mcp-protocol-version': '2025-06-18',
      'if-none-match': '"v1"',
      range: 'bytes=0-10',
      'last-event-id': '7',
    })
    return new Request(`${ORIGIN}/mcp?x=1`, { method: 'POST', headers, body: '{"jsonrpc":"2.0"}' })
  }

  it('is a GET of the path on the caller’s origin, without a body, accepting anything', async () => {
    const from = caller()
    const request = inProcessRequest(from, '/tenants/acme/report?format=json')
    expect(request.method).toBe('GET')
    expect(request.url).toBe(`${ORIGIN}/tenants/acme/report?format=json`)
    expect(request.body).toBeNull()
    expect(request.headers.get('accept')).toBe('*/*')
  })

  it('keeps the credentials and the client’s own headers, drops transport, body and conditional ones', () => {
    const request = inProcessRequest(caller(), '/catalog')
    expect(request.headers.get('authorization')).toBe('Bearer alice-token')
    expect(request.headers.get('cookie')).toBe('sid=s1; theme=dark')
    expect(request.headers.get('x-api-key')).toBe('alice-key')
    expect(request.headers.get('dpop')).toBe('proof')
    expect(request.headers.get('user-agent')).toBe('agent/1')
    expect(request.headers.get('x-forwarded-for')).toBe('203.0.113.9')
    for (const dropped of [
      'accept-encoding',
      'content-type',
      'content-length',
      'mcp-session-id',
      'mcp-protocol-version',
      'if-none-match',
      'range',
      'last-event-id',
    ]) {
      expect(request.headers.get(dropped), dropped).toBeNull()
    }
  })

  it('drops every listed header a caller can carry', () => {
    const headers = new Headers({ authorization: 'Bearer alice-token' })
    for (const name of IN_PROCESS_DROPPED_HEADERS) headers.set(name, 'from-the-caller')
    const request = inProcessRequest(new Request(`${ORIGIN}/mcp`, { headers }), '/catalog')
    const kept = [...request.headers.keys()].sort()
    expect(kept).toEqual(['accept', 'authorization'])
    expect(request.headers.get('accept')).toBe('*/*')
  })

  it('keeps a duplicated credential duplicated', () => {
    const headers = new Headers()
    headers.append('authorization', 'Bearer a')
    headers.append('authorization', 'Bearer b')
    const request = inProcessRequest(new Request(`${ORIGIN}/mcp`, { headers }), '/catalog')
    expect(request.headers.get('authorization')).toBe('Bearer a, Bearer b')
  })

  it('stays on the caller’s origin whatever the path holds', () => {
    const from = caller()
    for (const path of ['//evil.example/steal', 'https://evil.example/steal', 'relative']) {
      const request = inProcessRequest(from, path)
      expect(new URL(request.url).origin, path).toBe(ORIGIN)
    }
    expect(new URL(inProcessRequest(from, '//evil.example/steal').url).pathname).toBe('//evil.example/steal')
  })

  it('is linked to its caller by callerOf; a client request has no caller', () => {
    const from = caller()
    const request = inProcessRequest(from, '/catalog')
    expect(callerOf(request)).toBe(from)
    expect(callerOf(from)).toBeUndefined()
    expect(callerOf(new Request(request))).toBeUndefined()
  })

  it('reaches the handler through readThroughFetch as the very request, so the caller can be found', async () => {
    const from = caller()
    const seen: (Request | undefined)[] = []
    const read = await readThroughFetch(
      (request) => {
        seen.push(callerOf(request))
        return Response.json({ path: new URL(request.url).pathname })
      },
      inProcessRequest(from, '/plans'),
      { timeoutMs: 200, maxBytes: 1024 },
    )
    expect(seen).toEqual([from])
    expect(JSON.parse(decoded(read.body) ?? '')).toEqual({ path: '/plans' })
  })
})
