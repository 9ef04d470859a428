import { EventEmitter } from 'node:events'
import { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { IN_PROCESS_DROPPED_HEADERS } from '../mcp/in-process-headers.js'

const DROPPED = IN_PROCESS_DROPPED_HEADERS

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
 * The in-process GET of a resource read (an adapter links it to the caller's per-request evaluation, and
 * may give it its framework's request prototype):
 * the caller's headers minus `DROPPED`, one pass over the caller's raw header list.
 * All three header views are set because Node derives `headers` and `headersDistinct` from parser state
 * a synthetic request lacks. It is complete and has no body: the end of the stream is pushed only when
 * something reads it (pushing it up front schedules stream work every read would pay for).
 *
 * @internal For adapters: a Node `IncomingMessage`, documented by Node (its members are not repeated in
 * this package's API reference).
 */
export class SyntheticRequest extends IncomingMessage {
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
    this.complete = true
  }

  override _read(): void {
    this.push(null)
  }
}
