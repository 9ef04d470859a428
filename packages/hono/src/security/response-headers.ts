import type { Context } from 'hono'

/**
 * Sets `name: value` on the context's response once a handler answered, in place. `c.header` after the
 * handler re-creates the `Response` (and, on `@hono/node-server`, turns its lightweight response into a
 * full one whose body is then streamed); editing the headers keeps it as it is. A response whose
 * headers are immutable (one from `fetch`) is copied once, then edited. Only for values that may be set
 * again harmlessly (the same response object may be answered twice): a `Set-Cookie` goes through
 * `c.header(..., { append: true })`.
 */
export function setAnsweredHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value)
  } catch {
    c.res = new Response(c.res.body, c.res)
    c.res.headers.set(name, value)
  }
}

/** `setAnsweredHeader` for every header of `headers` the response does not carry yet. */
export function setMissingHeaders(c: Context, headers: readonly (readonly [string, string])[]): void {
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
