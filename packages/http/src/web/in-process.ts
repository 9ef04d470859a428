import type { MCPResourceResponse } from '@portcullis/core/mcp'
import { resourceProblem, statusOf } from '../in-process/resource-problem.js'
import { IN_PROCESS_DROPPED_HEADERS } from '../mcp/in-process-headers.js'
import { readStream } from './body.js'
import type { WebRequestHead } from './credential-source.js'

/** A Web-standard request handler: `app.fetch`, a Next.js route handler, `Bun.serve`'s `fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>

/**
 * The body a response was made with, when the runtime keeps it as given (a string or bytes, `null` for
 * none) until something reads it as a stream; undefined when it does not know. An in-process read takes
 * it instead of making and reading a stream.
 */
export type KeptBody = (response: Response) => string | Uint8Array | null | undefined

const encoder = new TextEncoder()

/** Bounds of one in-process read. */
export interface FetchReadLimits {
  readonly timeoutMs: number
  readonly maxBytes: number
}

const callers = new WeakMap<Request, Request>()

/**
 * The origin of a request's URL (serialized by the `Request`, so scheme and host are already normal): the
 * text before the path, without a parse, when the authority holds no userinfo; else the URL's `origin`.
 */
function originOf(url: string): string {
  const authority = url.indexOf('//') + 2
  const slash = url.indexOf('/', authority)
  if (authority < 2 || slash === -1) return new URL(url).origin
  const at = url.indexOf('@', authority)
  return at !== -1 && at < slash ? new URL(url).origin : url.slice(0, slash)
}

/**
 * The in-process `GET path` made for `caller` (an MCP read): the caller's origin, its headers but the
 * dropped ones (hop-by-hop, body, conditional and range, MCP transport headers) and `Accept: *\/*`, no
 * body. It is linked to the caller (`callerOf`), so an adapter can share the caller's per-request
 * evaluation and no mechanism runs twice.
 */
export function inProcessRequest(caller: Request, path: string): Request {
  const headers = new Headers()
  caller.headers.forEach((value, name) => {
    if (!IN_PROCESS_DROPPED_HEADERS.has(name)) headers.set(name, value)
  })
  headers.set('accept', '*/*')
  // the caller's origin whatever `path` holds (`//host/...` would otherwise name another authority)
  const request = new Request(`${originOf(caller.url)}${path.startsWith('/') ? '' : '/'}${path}`, {
    method: 'GET',
    headers,
  })
  callers.set(request, caller)
  return request
}

/** The request an in-process request was made for, or undefined for a request from a client. */
export function callerOf(request: WebRequestHead): Request | undefined {
  return callers.get(request as Request)
}

/** A response body, at most `limit` bytes (a declared larger one is refused unread), from its stream. */
async function readResponseBody(
  response: Response,
  limit: number,
  signal: AbortSignal,
): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {})
    return undefined
  }
  return readStream(response.body, limit, signal)
}

/** Whether a body is longer than `limit` bytes; a string is encoded only when its length cannot tell. */
function byteLengthOver(body: string | Uint8Array, limit: number): boolean {
  if (typeof body !== 'string') return body.byteLength > limit
  // a UTF-16 code unit is one to three UTF-8 bytes
  if (body.length > limit) return true
  return body.length * 3 > limit && encoder.encode(body).byteLength > limit
}

function answered(response: Response, body: string | Uint8Array): MCPResourceResponse {
  const contentType = response.headers.get('content-type')
  const { status } = response
  return contentType === null ? { status, body } : { status, contentType, body }
}

const TIMED_OUT: unique symbol = Symbol('portcullis.timed-out')

/**
 * Runs `request` through the application's own fetch handler (its routing, middleware, the route's
 * policy and guards, its handler) with no socket, and captures status, content type and body. An
 * answer later than `timeoutMs` is 504, a body over `maxBytes` 413, a throw 500 or the status the
 * error carries (never a stack). `keptBody` (a server adapter's knowledge of its own responses) spares
 * the stream of a body the response still holds as given.
 */
export async function readThroughFetch(
  fetch: FetchHandler,
  request: Request,
  limits: FetchReadLimits,
  keptBody?: KeptBody,
): Promise<MCPResourceResponse> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), limits.timeoutMs)
  })
  try {
    const pending = Promise.resolve(fetch(request))
    const response = await Promise.race([pending, expired])
    if (response === TIMED_OUT) {
      // a late answer's body is never read
      pending.then(
        (late) => late.body?.cancel().catch(() => {}),
        () => {},
      )
      return resourceProblem(504, 'Gateway Timeout')
    }
    const kept = keptBody?.(response)
    if (kept !== undefined) {
      const body = kept ?? new Uint8Array(0)
      if (byteLengthOver(body, limits.maxBytes)) return resourceProblem(413, 'Content Too Large')
      return answered(response, body)
    }
    const stop = new AbortController()
    const read = readResponseBody(response, limits.maxBytes, stop.signal)
    const body = await Promise.race([read, expired])
    if (body === TIMED_OUT) {
      // the body is locked to the reader: only the reader can cancel it
      stop.abort()
      return resourceProblem(504, 'Gateway Timeout')
    }
    if (body === undefined) return resourceProblem(413, 'Content Too Large')
    return answered(response, body)
  } catch (error) {
    return resourceProblem(statusOf(error), 'Resource read failed')
  } finally {
    clearTimeout(timer)
  }
}
