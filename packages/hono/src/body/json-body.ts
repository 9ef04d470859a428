import { HttpProblem, problems } from '@portcullis/http/problem'
import type { Context, HonoRequest } from 'hono'

/** What `c.req.json()` throws on a body that is not JSON: 400 `request.invalid`, as Express answers. */
function refuseMalformed(error: unknown): never {
  if (error instanceof SyntaxError) throw new HttpProblem(problems.invalidRequest)
  throw error
}

/**
 * Hono's own `c.req.json()` (the method of the request's prototype, with its body cache), whose
 * `SyntaxError` on a body that is not JSON becomes the 400 problem: the client's mistake, not a 500.
 * Any other failure (a body already read elsewhere, a broken stream) is thrown as it is.
 */
function json(this: HonoRequest): Promise<unknown> {
  const declared = (Object.getPrototypeOf(this) as { json: () => Promise<unknown> }).json
  return declared.call(this).catch(refuseMalformed)
}

/** Makes `c.req.json()` of this request answer a body that is not JSON with 400 problem+json. */
export function refuseMalformedJson(c: Context): void {
  ;(c.req as { json: unknown }).json = json
}

/** The `json` of a Web `Request`'s prototype (Node's, `@hono/node-server`'s lightweight one, ...). */
function requestJson(this: Request): Promise<unknown> {
  const declared = (Object.getPrototypeOf(this) as { json: () => Promise<unknown> }).json
  return declared.call(this).catch(refuseMalformed)
}

/** Where the own `json` goes: one descriptor for every request, no closure made per request. */
const REQUEST_JSON: PropertyDescriptor = { configurable: true, writable: true, value: requestJson }

/**
 * Makes `request.json()` of a Web `Request` (what a fetch-form handler receives) answer a body that is
 * not JSON with the same 400 problem: its own property over the prototype's method, so the request
 * stays a real `Request` (brand checks, `new Request(request)`, `fetch(request)` keep working).
 */
export function refuseMalformedRequestJson(request: Request): Request {
  Object.defineProperty(request, 'json', REQUEST_JSON)
  return request
}
