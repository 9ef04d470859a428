import type { Context } from 'hono'
import { keptResponse } from '../node-server/kept-response.js'

type PlainHeaders = Record<string, string | readonly string[]>

/** The headers of a kept response when they are a plain record (as `c.json`, `c.body`, `c.text` make them). */
function plainHeaders(headers: unknown): PlainHeaders | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined
  const prototype = Object.getPrototypeOf(headers)
  return prototype === Object.prototype || prototype === null ? (headers as PlainHeaders) : undefined
}

function hasHeader(headers: PlainHeaders, lowerName: string): boolean {
  for (const name in headers) if (name.toLowerCase() === lowerName) return true
  return false
}

/**
 * Edits the answered response's headers through its plain record when it has one: a new lightweight
 * `Response` with the same status and body and the edited copy of the record replaces it (no `Headers`
 * is made, and the server keeps its fast path). False when the response is any other kind.
 */
function editKept(c: Context, edit: (headers: PlainHeaders) => PlainHeaders | undefined): boolean {
  const kept = keptResponse(c.res)
  const headers = kept === undefined ? undefined : plainHeaders(kept.headers)
  if (kept === undefined || headers === undefined) return false
  const edited = edit(headers)
  if (edited === undefined) return true
  // `c.res = response` over an answered context would copy the old one (and read its body as a stream)
  c.res = undefined
  c.res = new Response(kept.body, { status: kept.status, headers: edited as Record<string, string> })
  return true
}

/**
 * Sets `name: value` (a lower-case name) on the context's response once a handler answered, without
 * re-creating it through its body as `c.header` does after the handler (on `@hono/node-server` that
 * turns the lightweight response into a full one whose body is then streamed). A response whose headers
 * are immutable (one from `fetch`) is copied once, then edited. Only for a value that may be set again
 * harmlessly (the same response object may be answered twice): a `Set-Cookie` goes through
 * `c.header(..., { append: true })`.
 */
export function setAnsweredHeader(c: Context, name: string, value: string): void {
  const kept = editKept(c, (headers) => {
    const edited: PlainHeaders = {}
    for (const key in headers) if (key.toLowerCase() !== name) edited[key] = headers[key] as string
    edited[name] = value
    return edited
  })
  if (kept) return
  try {
    c.res.headers.set(name, value)
  } catch {
    c.res = new Response(c.res.body, c.res)
    c.res.headers.set(name, value)
  }
}

/** Every header of `headers` (lower-case names) the answered response does not carry yet, as `setAnsweredHeader`. */
export function setMissingHeaders(c: Context, headers: readonly (readonly [string, string])[]): void {
  const kept = editKept(c, (present) => {
    let edited: PlainHeaders | undefined
    for (const [name, value] of headers) {
      if (hasHeader(present, name)) continue
      // copied key by key: a spread copy grown afterwards is many times slower in V8
      if (edited === undefined) {
        edited = {}
        for (const key in present) edited[key] = present[key] as string
      }
      edited[name] = value
    }
    return edited
  })
  if (kept) return
  let target = c.res.headers
  for (const [name, value] of headers) {
    if (target.has(name)) continue
    try {
      target.set(name, value)
    } catch {
      c.res = new Response(c.res.body, c.res)
      target = c.res.headers
      target.set(name, value)
    }
  }
}
