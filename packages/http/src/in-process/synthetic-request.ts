import { EventEmitter } from 'node:events'
import { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { IN_PROCESS_DROPPED_HEADERS } from '../mcp/in-process-headers.js'

const DROPPED = IN_PROCESS_DROPPED_HEADERS

type CallerSocket = (Socket & { encrypted?: boolean }) | null | undefined

/**
 * A detached stand-in for the caller's socket: reports the caller's addresses (so `req.ip`, `req.secure`
 * and `req.protocol` stay truthful), is neither readable nor writable, and accepts the socket calls
 * middleware makes (`setTimeout`, `destroy`, ...) without touching the caller's connection. Much lighter
 * than a `net.Socket`, which matters since every read makes one.
 */
class DetachedSocket extends EventEmitter {
  declare readonly readable: false
  declare readonly writable: false
  declare readonly destroyed: false
  declare readonly remoteAddress: string | undefined
  declare readonly remotePort: number | undefined
  declare readonly remoteFamily: string | undefined
  declare readonly localAddress: string | undefined
  declare readonly localPort: number | undefined
  declare readonly encrypted: true | undefined

  constructor(source: CallerSocket) {
    super()
    this.remoteAddress = source?.remoteAddress
    this.remotePort = source?.remotePort
    this.remoteFamily = source?.remoteFamily
    this.localAddress = source?.localAddress
    this.localPort = source?.localPort
    this.encrypted = source?.encrypted === true ? true : undefined
  }

  address(): { address?: string; family?: string; port?: number } {
    const { localAddress, remoteFamily, localPort } = this
    return {
      ...(localAddress === undefined ? {} : { address: localAddress }),
      ...(remoteFamily === undefined ? {} : { family: remoteFamily }),
      ...(localPort === undefined ? {} : { port: localPort }),
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
// the same for every detached socket: on the prototype rather than on each one
Object.defineProperties(DetachedSocket.prototype, {
  readable: { value: false, writable: true, configurable: true },
  writable: { value: false, writable: true, configurable: true },
  destroyed: { value: false, writable: true, configurable: true },
})

const CALLER_RAW = Symbol('portcullis.callerRawHeaders')
const RAW = Symbol('portcullis.rawHeaders')
const DISTINCT = Symbol('portcullis.headersDistinct')

interface LazyViews {
  [CALLER_RAW]: readonly string[]
  [RAW]: string[] | undefined
  [DISTINCT]: Record<string, string[]> | undefined
}

/** The caller's raw header list minus `DROPPED` (names lower-cased), after `accept: *\/*`. */
function rawViewOf(callerRaw: readonly string[]): string[] {
  const raw: string[] = ['accept', '*/*']
  for (let index = 0; index + 1 < callerRaw.length; index += 2) {
    const name = (callerRaw[index] as string).toLowerCase()
    if (!DROPPED.has(name)) raw.push(name, callerRaw[index + 1] as string)
  }
  return raw
}

function distinctViewOf(raw: readonly string[]): Record<string, string[]> {
  const distinct: Record<string, string[]> = {}
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] as string
    const value = raw[index + 1] as string
    const values = distinct[name]
    if (values === undefined) distinct[name] = [value]
    else values.push(value)
  }
  return distinct
}

/**
 * The in-process GET of a resource read (an adapter links it to the caller's per-request evaluation, and
 * may give it its framework's request prototype):
 * the caller's headers minus `DROPPED`. All three header views are provided because Node derives `headers`
 * and `headersDistinct` from parser state a synthetic request lacks: `headers` (which every framework
 * reads) is built at once, `rawHeaders` and `headersDistinct` (rarely read) from the caller's raw header
 * list when first read. It is complete and has no body: the end of the stream is pushed only when
 * something reads it (pushing it up front schedules stream work every read would pay for).
 *
 * @internal For adapters: a Node `IncomingMessage`, documented by Node (its members are not repeated in
 * this package's API reference).
 */
export class SyntheticRequest extends IncomingMessage {
  constructor(caller: IncomingMessage, path: string) {
    super(new DetachedSocket(caller.socket) as unknown as Socket)
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
    this.headers = headers
    const views = this as unknown as LazyViews
    views[CALLER_RAW] = caller.rawHeaders
    views[RAW] = undefined
    views[DISTINCT] = undefined
    this.complete = true
  }

  override _read(): void {
    this.push(null)
  }
}

// Accessors on the prototype (Node's constructor assigns `rawHeaders`, which then lands in the slot).
Object.defineProperties(SyntheticRequest.prototype, {
  rawHeaders: {
    get(this: LazyViews): string[] {
      let raw = this[RAW]
      if (raw === undefined) {
        raw = rawViewOf(this[CALLER_RAW] ?? [])
        this[RAW] = raw
      }
      return raw
    },
    set(this: LazyViews, value: string[]) {
      this[RAW] = value
    },
    configurable: true,
  },
  headersDistinct: {
    get(this: LazyViews & { rawHeaders: string[] }): Record<string, string[]> {
      let distinct = this[DISTINCT]
      if (distinct === undefined) {
        distinct = distinctViewOf(this.rawHeaders)
        this[DISTINCT] = distinct
      }
      return distinct
    },
    set(this: LazyViews, value: Record<string, string[]>) {
      this[DISTINCT] = value
    },
    configurable: true,
  },
})
