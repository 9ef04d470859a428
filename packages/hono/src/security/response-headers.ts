import type { Context } from 'hono'
import { keptResponse } from '../node-server/kept-response.js'

type PlainHeaders = Record<string, string>

/** What `@hono/node-server` sends for a body without a `Content-Type`. */
const DEFAULT_CONTENT_TYPE = 'text/plain; charset=UTF-8'

/**
 * The headers of a kept response as the plain record the server writes, and whether that is a new
 * record: the record itself (as `c.json`, `c.body`, `c.text` make it without earlier `c.header` calls) or
 * a `Headers` (after `c.header`) as a record of lower-case names; either with the server's default
 * `Content-Type` for a body without one, which it adds when it writes a `Headers`. Undefined for any other
 * form, and for `Headers` with a `Set-Cookie` (a record holds one value per name).
 */
function plainHeaders(
  headers: unknown,
  body: unknown,
): { readonly record: PlainHeaders; readonly copied: boolean } | undefined {
  let record: PlainHeaders
  let copied = false
  if (headers instanceof Headers) {
    if (headers.has('set-cookie')) return undefined
    record = {}
    copied = true
    for (const [name, value] of headers) record[name] = value
  } else {
    if (typeof headers !== 'object' || headers === null) return undefined
    const prototype = Object.getPrototypeOf(headers)
    if (prototype !== Object.prototype && prototype !== null) return undefined
    record = headers as PlainHeaders
  }
  if (body !== null && !hasHeader(record, 'content-type')) {
    if (!copied) record = copy(record)
    copied = true
    record['content-type'] = DEFAULT_CONTENT_TYPE
  }
  return { record, copied }
}

/** A copy made key by key: a spread copy grown afterwards is many times slower in V8. */
function copy(headers: PlainHeaders): PlainHeaders {
  const copied: PlainHeaders = {}
  for (const key in headers) copied[key] = headers[key] as string
  return copied
}

function hasHeader(headers: PlainHeaders, lowerName: string): boolean {
  for (const name in headers) if (name.toLowerCase() === lowerName) return true
  return false
}

/**
 * Edits the answered response's headers through a plain record when it has one: a new lightweight
 * `Response` with the same status and body and the edited record replaces it (the server writes the
 * record as it is, with no `Headers` made). False when the response is any other kind.
 */
function editKept(c: Context, edit: (headers: PlainHeaders) => PlainHeaders | undefined): boolean {
  const kept = keptResponse(c.res)
  if (kept === undefined) return false
  const plain = plainHeaders(kept.headers, kept.body)
  if (plain === undefined) return false
  const edited = edit(plain.record) ?? (plain.copied ? plain.record : undefined)
  if (edited === undefined) return true
  // `c.res = response` over an answered context would copy the old one (and read its body as a stream)
  c.res = undefined
  c.res = new Response(kept.body, { status: kept.status, headers: edited })
  return true
}

/**
 * Sets every header of `headers` (lower-case names) the answered response does not carry yet, once a
 * handler answered, without re-creating it through its body as `c.header` does after the handler (on
 * `@hono/node-server` that turns the lightweight response into a full one whose body is then streamed).
 * A response whose headers are immutable (one from `fetch`) is copied once, then edited. A header the
 * handler set itself, in any case, is kept.
 */
export function setMissingHeaders(c: Context, headers: readonly (readonly [string, string])[]): void {
  const kept = editKept(c, (present) => {
    let edited: PlainHeaders | undefined
    for (const [name, value] of headers) {
      if (hasHeader(present, name)) continue
      edited ??= copy(present)
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
