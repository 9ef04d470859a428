import { IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
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

/** A detached socket that reports the caller's addresses, so `req.ip` and `req.secure` stay truthful. */
function callerSocket(caller: IncomingMessage): Socket {
  const socket = new Socket()
  const source = caller.socket as Socket & { encrypted?: boolean }
  Object.defineProperties(socket, {
    remoteAddress: { value: source?.remoteAddress },
    remotePort: { value: source?.remotePort },
    remoteFamily: { value: source?.remoteFamily },
    localAddress: { value: source?.localAddress },
    localPort: { value: source?.localPort },
    encrypted: { value: source?.encrypted === true ? true : undefined },
  })
  return socket
}

function syntheticRequest(caller: IncomingMessage, path: string): IncomingMessage {
  const request = new IncomingMessage(callerSocket(caller))
  request.method = 'GET'
  request.url = path
  request.httpVersionMajor = 1
  request.httpVersionMinor = 1
  request.httpVersion = '1.1'
  const headers: Record<string, string | string[]> = { accept: '*/*' }
  const distinct: Record<string, string[]> = { accept: ['*/*'] }
  const raw: string[] = ['accept', '*/*']
  for (const [name, value] of Object.entries(caller.headers)) {
    if (value === undefined || DROPPED.has(name)) continue
    headers[name] = value
  }
  for (const [name, values] of Object.entries(caller.headersDistinct)) {
    if (values === undefined || DROPPED.has(name)) continue
    distinct[name] = [...values]
    for (const value of values) raw.push(name, value)
  }
  // set all three views: Node derives headersDistinct from parser state, which a synthetic request lacks
  request.headers = headers
  request.headersDistinct = distinct
  request.rawHeaders = raw
  request.push(null)
  return request
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
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
    const request = syntheticRequest(caller, path)
    const response = new ServerResponse(request)
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (outcome: MCPResourceResponse) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const timer = setTimeout(() => settle(problem(504, 'Gateway Timeout')), options.timeoutMs)
    const collect = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return
      const buffer = toBuffer(chunk, encoding)
      size += buffer.byteLength
      if (size > options.maxBytes) settle(problem(413, 'Content Too Large'))
      else chunks.push(buffer)
    }
    // Headers are only recorded, never serialized: nothing goes on a wire. `headersSent` becomes an
    // instance getter so Express, finalhandler and on-headers see the usual state.
    let headersSent = false
    Object.defineProperty(response, 'headersSent', { get: () => headersSent })
    Object.assign(response, {
      writeHead(status: number, reason?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders) {
        if (headersSent) return response
        const extra = typeof reason === 'object' ? reason : headers
        if (extra !== undefined && !Array.isArray(extra)) {
          for (const [name, value] of Object.entries(extra)) {
            if (value !== undefined) response.setHeader(name, value)
          }
        }
        response.statusCode = Number.isInteger(status) && status >= 100 && status <= 999 ? status : 500
        if (typeof reason === 'string') response.statusMessage = reason
        headersSent = true
        return response
      },
      write(chunk: unknown, encoding?: unknown, callback?: unknown) {
        if (!response.headersSent) response.writeHead(response.statusCode)
        collect(chunk, encoding)
        const done = typeof encoding === 'function' ? encoding : callback
        if (typeof done === 'function') queueMicrotask(() => (done as () => void)())
        return true
      },
      end(chunk?: unknown, encoding?: unknown, callback?: unknown) {
        if (response.writableEnded) return response
        if (!response.headersSent) response.writeHead(response.statusCode)
        collect(chunk, encoding)
        const done = [chunk, encoding, callback].find((value) => typeof value === 'function')
        ;(response as { finished: boolean }).finished = true
        const contentType = response.getHeader('content-type')
        settle({
          status: response.statusCode,
          ...(typeof contentType === 'string' ? { contentType } : {}),
          body: Buffer.concat(chunks),
        })
        // the usual lifecycle events, asynchronously as Node emits them, for on-finished style listeners
        process.nextTick(() => {
          response.emit('prefinish')
          response.emit('finish')
          response.emit('close')
          request.emit('close')
          if (typeof done === 'function') (done as () => void)()
        })
        return response
      },
    })
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
