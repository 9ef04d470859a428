import type { SecurityContext } from '@portcullis/core/authorization'
import type { LocalRequestInfo } from '@portcullis/core/local-accounts'
import { type ProblemInit, problemBody, problemHeaders } from '../problem/problem.js'
import type { RouteOptions } from '../routing/route-options.js'
import type { HttpMethod } from '../routing/route-registry.js'

/**
 * One request as a framework-neutral route handler sees it. The adapter builds it from its native
 * request; `native` carries the adapter's own request and response objects for application callbacks
 * (`signIn(signIn, request, response)`).
 */
export interface HttpExchange<N = unknown> {
  readonly method: string
  /** The route's path parameters, decoded once by the framework's router. */
  readonly params: Readonly<Record<string, string>>
  /** The query string, without `?`. */
  readonly query: string
  /** A header (lower-case name), several lines joined with `, `. */
  header(name: string): string | undefined
  /** The `Cookie` header as the server parsed it (several lines joined with `; `). */
  readonly cookieHeader: string | undefined
  /** The verified security context of the route (anonymous on `anonymous()` routes). */
  readonly security: SecurityContext
  /** What rate limits and session records need: peer address, `X-Forwarded-For` lines, user agent. */
  readonly requestInfo: LocalRequestInfo
  /** True when the client prefers JSON to an HTML redirect (`Accept` negotiation). */
  readonly wantsJson: boolean
  /**
   * The body as a plain value (JSON or form, at most `limit` bytes), or a 400/413/415 problem; a body a
   * framework parser already read is used as it is.
   */
  body(limit: number): Promise<unknown>
  /** Adds a `Set-Cookie` to the response now: it is sent whatever the answer, a problem included. */
  appendSetCookie(value: string): void
  readonly native: N
}

/** What a framework-neutral handler answers; the adapter writes it. */
export interface HttpAnswer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  /** `Set-Cookie` values, in order. */
  readonly setCookies?: readonly string[]
  /** A JSON body (absent: no body). */
  readonly json?: unknown
}

/** One entry of a framework-neutral route table: the adapter registers it as a secured route. */
export interface NeutralRoute<N = unknown> {
  readonly method: HttpMethod
  /** The full path (`/auth/login`, `/auth/oauth/:provider/callback`). */
  readonly path: string
  readonly options: RouteOptions
  handle(exchange: HttpExchange<N>): Promise<HttpAnswer>
  /**
   * How a thrown error is answered: `'local'` keeps a typed local-account error's client-safe detail,
   * `'default'` is `problemFor`. Either way the answer is `no-store`.
   */
  readonly errors: 'local' | 'default'
}

/** A 303 to `location`, without a body. */
export function seeOther(location: string, setCookies: readonly string[] = []): HttpAnswer {
  return { status: 303, headers: { Location: location }, setCookies }
}

/** A problem answer a handler returns itself, with the headers `renderProblem` gives it (`Retry-After`...). */
export function problemAnswer(init: ProblemInit): HttpAnswer {
  return { status: init.status, headers: problemHeaders(init), json: problemBody(init) }
}

/** A JSON answer. */
export function jsonAnswer(json: unknown, status = 200, setCookies: readonly string[] = []): HttpAnswer {
  return { status, json, setCookies }
}

interface MediaRange {
  readonly type: string
  readonly subtype: string
  readonly q: number
  readonly index: number
}

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').flatMap((part, index) => {
    const [range = '', ...parameters] = part.split(';').map((item) => item.trim().toLowerCase())
    const [type, subtype] = range.split('/')
    if (type === undefined || subtype === undefined || type === '') return []
    const qParameter = parameters.find((parameter) => parameter.startsWith('q='))
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2))
    return Number.isFinite(q) ? [{ type, subtype, q, index }] : []
  })
}

/**
 * Whether a client prefers `application/json` to `text/html` by its `Accept` header, the way content
 * negotiation picks between the two (quality, then specificity, then order; HTML on a tie or without a
 * header, since browsers are the default audience of redirects).
 */
export function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false
  const ranges = mediaRanges(accept)
  const score = (type: string, subtype: string) => {
    let best: { q: number; specificity: number; index: number } | undefined
    for (const range of ranges) {
      const matches =
        (range.type === type || range.type === '*') && (range.subtype === subtype || range.subtype === '*')
      if (!matches) continue
      const specificity = (range.type === type ? 2 : 0) + (range.subtype === subtype ? 1 : 0)
      if (best === undefined || specificity > best.specificity)
        best = { q: range.q, specificity, index: range.index }
    }
    return best
  }
  const html = score('text', 'html')
  const json = score('application', 'json')
  if (json === undefined || json.q <= 0) return false
  if (html === undefined || html.q <= 0) return true
  if (json.q !== html.q) return json.q > html.q
  if (json.specificity !== html.specificity) return json.specificity > html.specificity
  return json.index < html.index
}

/**
 * A route table under `{base}/auth`: `add` appends a route whose thrown typed errors keep their
 * client-safe detail (`errors: 'local'`), as every generated account route does.
 */
export function authRouteTable(base: string): {
  readonly routes: NeutralRoute[]
  add(
    method: HttpMethod,
    path: string,
    options: RouteOptions,
    handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
  ): void
} {
  const routes: NeutralRoute[] = []
  return {
    routes,
    add(method, path, options, handle) {
      routes.push({ method, path: `${base}/auth${path}`, options, handle, errors: 'local' })
    },
  }
}
