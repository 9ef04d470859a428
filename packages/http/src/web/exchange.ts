import type { RouteParameters, SecurityContext } from '@portcullis/core/authorization'
import type { LocalRequestInfo } from '@portcullis/core/local-accounts'
import { type HttpExchange, prefersJson } from '../exchange/exchange.js'
import type { RouteRequest } from '../security/route-authorizer.js'
import { readWebRequestBody } from './body.js'

/** What a Web adapter knows about a request besides the `Request` itself. */
export interface WebExchangeInit<N> {
  readonly request: Request
  /** The route's path parameters, decoded by the framework's router. */
  readonly params: Readonly<Record<string, string>>
  readonly security: SecurityContext
  readonly requestInfo: LocalRequestInfo
  readonly native: N
  /** Where `appendSetCookie` sends a value; default: collected in `setCookies`. */
  readonly appendSetCookie?: (value: string) => void
}

/** An exchange over a Web `Request`, and the `Set-Cookie` values added while it was handled. */
export interface WebExchange<N> {
  readonly exchange: HttpExchange<N>
  readonly setCookies: readonly string[]
}

function queryOf(url: string): string {
  const start = url.indexOf('?')
  if (start === -1) return ''
  const hash = url.indexOf('#', start)
  return url.slice(start + 1, hash === -1 ? url.length : hash)
}

/** The framework-neutral view of a Web request for a generated route. */
export function webExchange<N>(init: WebExchangeInit<N>): WebExchange<N> {
  const { request } = init
  const setCookies: string[] = []
  const exchange: HttpExchange<N> = {
    method: request.method,
    params: init.params,
    query: queryOf(request.url),
    header: (name) => request.headers.get(name) ?? undefined,
    cookieHeader: request.headers.get('cookie') ?? undefined,
    security: init.security,
    requestInfo: init.requestInfo,
    wantsJson: prefersJson(request.headers.get('accept') ?? undefined),
    body: (limit) => readWebRequestBody(request, limit),
    appendSetCookie:
      init.appendSetCookie ??
      ((value) => {
        setCookies.push(value)
      }),
    native: init.native,
  }
  return { exchange, setCookies }
}

/**
 * The neutral route request over a Web request (read only by step-up routes and guards); `params` is
 * called only when a guard reads the path parameters, so a route without one never decodes them.
 */
export function webRouteRequest(request: Request, params: () => RouteParameters): RouteRequest {
  return {
    get params() {
      return params()
    },
    header: (name) => request.headers.get(name) ?? undefined,
    get cookieHeader() {
      return request.headers.get('cookie') ?? undefined
    },
  }
}
