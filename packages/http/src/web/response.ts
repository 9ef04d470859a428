import type { HttpAnswer } from '../exchange/exchange.js'
import { type ProblemInit, renderProblem } from '../problem/problem.js'

/** Adds the values of a header record to `headers` (a `Set-Cookie` appended, anything else set). */
function assign(headers: Headers, values: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(values)) {
    if (name.toLowerCase() === 'set-cookie') headers.append(name, value)
    else headers.set(name, value)
  }
}

/**
 * A Web `Response` for a neutral answer: its `Set-Cookie` values (after `setCookies`, the ones added
 * while handling), its headers, then its JSON body or none.
 */
export function answerResponse(answer: HttpAnswer, setCookies: readonly string[] = []): Response {
  const headers = new Headers()
  for (const cookie of setCookies) headers.append('set-cookie', cookie)
  for (const cookie of answer.setCookies ?? []) headers.append('set-cookie', cookie)
  if (answer.headers !== undefined) assign(headers, answer.headers)
  if (answer.json === undefined) return new Response(null, { status: answer.status, headers })
  if (!headers.has('content-type')) headers.set('content-type', 'application/json; charset=utf-8')
  return new Response(JSON.stringify(answer.json), { status: answer.status, headers })
}

/**
 * `init` as an `application/problem+json` `Response` (`Cache-Control: no-store`, `Retry-After` on every
 * 429 and 503), with `setCookies` (a spent step-up cookie, say) and the extra `headers` sent too.
 */
export function problemResponse(
  init: ProblemInit,
  setCookies: readonly string[] = [],
  headers: Readonly<Record<string, string>> = {},
): Response {
  const rendered = renderProblem(init)
  const all = new Headers()
  for (const cookie of setCookies) all.append('set-cookie', cookie)
  assign(all, headers)
  assign(all, rendered.headers)
  return new Response(rendered.body, { status: rendered.status, headers: all })
}
