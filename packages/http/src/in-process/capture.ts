import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { MCPResourceResponse } from '@portcullis/core/mcp'
import { resourceProblem } from './resource-problem.js'

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

export type CapturingResponse = ServerResponse & { [CAPTURE]: Capture }

function collect(capture: Capture, chunk: unknown, encoding: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return
  const buffer = toBuffer(chunk, encoding)
  capture.size += buffer.byteLength
  if (capture.size > capture.maxBytes) capture.settle(resourceProblem(413, 'Content Too Large'))
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

/**
 * The methods that make a response record instead of serializing (nothing goes on a wire), installed
 * once on the in-process response prototype rather than on every response. `headersSent` is its own
 * state so Express, finalhandler and on-headers see the usual lifecycle.
 */
export const CAPTURING_METHODS: PropertyDescriptorMap = {
  writeHead: { value: writeHead, writable: true, configurable: true },
  write: { value: write, writable: true, configurable: true },
  end: { value: end, writable: true, configurable: true },
  headersSent: {
    get(this: CapturingResponse) {
      return this[CAPTURE].headersSent
    },
    configurable: true,
  },
}

/** Starts capturing on a response whose prototype carries `CAPTURING_METHODS`. */
export function capturingResponse(
  response: ServerResponse,
  maxBytes: number,
  settle: (outcome: MCPResourceResponse) => void,
): CapturingResponse {
  const capturing = response as CapturingResponse
  capturing[CAPTURE] = { maxBytes, settle, chunks: [], size: 0, headersSent: false }
  return capturing
}
