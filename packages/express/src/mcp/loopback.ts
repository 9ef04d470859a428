import { EventEmitter } from 'node:events'
import { IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { MCPResourceResponse } from '@portcullis/core/mcp'

/** The Express application's internal dispatch entry point (`app.handle`). */
export type AppDispatch = (
  request: IncomingMessage,
  response: ServerResponse,
  done: (error?: unknown) => void,
) => void

export interface LoopbackOptions {
  readonly timeoutMs: number
  readonly maxBytes: number
}

/**
 * Headers never copied from the MCP request into the in-process GET: hop-by-hop and body headers,
 * conditional and range headers (a read is never a 304 or a partial), content negotiation that could
 * pick compression or SSE, and MCP transport headers.
 */
const DROPPED = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'keep-alive',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'proxy-connection',
  'range',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

function problem(status: number, title: string): MCPResourceResponse {
  return {
    status,
    contentType: 'application/problem+json',
    body: Buffer.from(JSON.stringify({ type: 'about:blank', title, status })),
  }
}

function statusOf(error: unknown): number {
  const candidate =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode
  return typeof candidate === 'number' && Number.isInteger(candidate) && candidate >= 400 && candidate <= 599
    ? candidate
    : 500
}

/**
 * A detached stand-in for the caller's socket: reports the caller's addresses (so `req.ip`, `req.secure`
 * and `req.protocol` stay truthful), is neither readable nor writable, and accepts the socket calls
 * middleware makes (`setTimeout`, `destroy`, ...) without touching the caller's connection. Much lighter
 * than a `net.Socket`, which matters since every read makes one.
 */
class DetachedSocket extends EventEmitter {
  readonly readable = false
  readonly writable = false
  readonly destroyed = false
  readonly remoteAddress: string | undefined
  readonly remotePort: number | undefined
  readonly remoteFamily: string | undefined
  readonly localAddress: string | undefined
  readonly localPort: number | undefined
  readonly encrypted: true | undefined

  constructor(caller: IncomingMessage) {
    super()
    const source = caller.socket as (Socket & { encrypted?: boolean }) | null
    this.remoteAddress = source?.remoteAddress
    this.remotePort = source?.remotePort
    this.remoteFamily = source?.remoteFamily
    this.localAddress = source?.localAddress
    this.localPort = source?.localPort
    this.encrypted = source?.encrypted === true ? true : undefined
  }

  address(): { address?: string; family?: string; port?: number } {
    return {
      ...(this.localAddress === undefined ? {} : { address: this.localAddress }),
      ...(this.remoteFamily === undefined ? {} : { family: this.remoteFamily }),
      ...(this.localPort === undefined ? {} : { port: this.localPort }),
    }
  }
  setTimeout(): this {
    return this
  }
  setNoDelay(): this {
    return this
  }
  setKeepAlive(): this {
    return this
  }
  ref(): this {
    return this
  }
  unref(): this {
    return this
  }
  destroy(): this {
    return this
  }
  end(): this {
    return this
  }
}

/**
 * The in-process GET: the caller's headers minus `DROPPED`, one pass over the caller's raw header list.
 * All three header views are set because Node derives `headers` and `headersDistinct` from parser state
 * a synthetic request lacks.
 */
class SyntheticRequest extends IncomingMessage {
  constructor(caller: IncomingMessage, path: string) {
    super(new DetachedSocket(caller) as unknown as Socket)
    this.method = 'GET'
    this.url = path
    this.httpVersionMajor = 1
    this.httpVersionMinor = 1
    this.httpVersion = '1.1'
    const headers: Record<string, string | string[]> = { accept: '*/*' }
    const source = caller.headers
    for (const name in source) {
      const value = source[name]
      if (value !== undefined && !DROPPED.has(name)) headers[name] = value
    }
    const distinct: Record<string, string[]> = { accept: ['*/*'] }
    const raw: string[] = ['accept', '*/*']
    const callerRaw = caller.rawHeaders
    for (let index = 0; index + 1 < callerRaw.length; index += 2) {
      const name = (callerRaw[index] as string).toLowerCase()
      if (DROPPED.has(name)) continue
      const value = callerRaw[index + 1] as string
      const values = distinct[name]
      if (values === undefined) distinct[name] = [value]
      else values.push(value)
      raw.push(name, value)
    }
    this.headers = headers
    this.headersDistinct = distinct
    this.rawHeaders = raw
    this.push(null)
  }
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
}

const CAPTURE = Symbol('portcullis.capture')

interface Capture {
  readonly maxBytes: number
  readonly settle: (outcome: MCPResourceResponse) => void
  readonly chunks: Buffer[]
  size: number
  headersSent: boolean
}

type CapturingResponse = ServerResponse & { [CAPTURE]: Capture }

function collect(capture: Capture, chunk: unknown, encoding: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return
  const buffer = toBuffer(chunk, encoding)
  capture.size += buffer.byteLength
  if (capture.size > capture.maxBytes) capture.settle(problem(413, 'Content Too Large'))
  else capture.chunks.push(buffer)
}

function writeHead(
  this: CapturingResponse,
  status: number,
  reason?: string | OutgoingHttpHeaders,
  headers?: OutgoingHttpHeaders,
): CapturingResponse {
  const capture = this[CAPTURE]
  if (capture.headersSent) return this
  const extra = typeof reason === 'object' ? reason : headers
  if (extra !== undefined && !Array.isArray(extra)) {
    for (const name in extra) {
      const value = extra[name]
      if (value !== undefined) this.setHeader(name, value)
    }
  }
  this.statusCode = Number.isInteger(status) && status >= 100 && status <= 999 ? status : 500
  if (typeof reason === 'string') this.statusMessage = reason
  capture.headersSent = true
  return this
}

function write(this: CapturingResponse, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
  if (!this[CAPTURE].headersSent) this.writeHead(this.statusCode)
  collect(this[CAPTURE], chunk, encoding)
  const done = typeof encoding === 'function' ? encoding : callback
  if (typeof done === 'function') queueMicrotask(() => (done as () => void)())
  return true
}

function end(
  this: CapturingResponse,
  chunk?: unknown,
  encoding?: unknown,
  callback?: unknown,
): CapturingResponse {
  if (this.writableEnded) return this
  const capture = this[CAPTURE]
  if (!capture.headersSent) this.writeHead(this.statusCode)
  collect(capture, chunk, encoding)
  const done = typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : callback
  ;(this as { finished: boolean }).finished = true
  const contentType = this.getHeader('content-type')
  const { chunks } = capture
  capture.settle({
    status: this.statusCode,
    ...(typeof contentType === 'string' ? { contentType } : {}),
    body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
  })
  // the usual lifecycle events, asynchronously as Node emits them, for on-finished style listeners
  process.nextTick(() => {
    this.emit('prefinish')
    this.emit('finish')
    this.emit('close')
    this.req.emit('close')
    if (typeof done === 'function') (done as () => void)()
  })
  return this
}

const HEADERS_SENT: PropertyDescriptor = {
  get(this: CapturingResponse) {
    return this[CAPTURE].headersSent
  },
}

/**
 * A response that records instead of serializing: nothing goes on a wire. Its methods are own
 * properties (Express swaps the prototype for the app's), shared functions rather than per-read
 * closures; `headersSent` is its own state so Express, finalhandler and on-headers see the usual lifecycle.
 */
function capturingResponse(
  request: IncomingMessage,
  maxBytes: number,
  settle: (outcome: MCPResourceResponse) => void,
): CapturingResponse {
  const response: ServerResponse = new ServerResponse(request)
  const capturing = Object.assign(response, {
    [CAPTURE]: { maxBytes, settle, chunks: [], size: 0, headersSent: false } satisfies Capture,
  })
  Object.defineProperty(response, 'headersSent', HEADERS_SENT)
  response.writeHead = writeHead as ServerResponse['writeHead']
  response.write = write as ServerResponse['write']
  response.end = end as ServerResponse['end']
  return capturing
}

/**
 * Runs `GET path` through the application's own pipeline (middleware, route policy, guards, error
 * handlers) with the caller's headers and credentials, and captures status, content type and body.
 * Unmatched routes answer 404 and unhandled errors 500 as problem documents (never a stack); a route
 * that does not answer within `timeoutMs` yields 504, a body over `maxBytes` yields 413.
 */
export function invokeInProcess(
  dispatch: AppDispatch,
  caller: IncomingMessage,
  path: string,
  options: LoopbackOptions,
): Promise<MCPResourceResponse> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: MCPResourceResponse) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const timer = setTimeout(() => settle(problem(504, 'Gateway Timeout')), options.timeoutMs)
    const request = new SyntheticRequest(caller, path)
    const response = capturingResponse(request, options.maxBytes, settle)
    try {
      dispatch(request, response, (error?: unknown) => {
        // an error after the head was written still fails the read instead of waiting for the timeout
        if (response.writableEnded || (error === undefined && response.headersSent)) return
        settle(
          error === undefined ? problem(404, 'Not Found') : problem(statusOf(error), 'Resource read failed'),
        )
      })
    } catch (error) {
      settle(problem(statusOf(error), 'Resource read failed'))
    }
  })
}
