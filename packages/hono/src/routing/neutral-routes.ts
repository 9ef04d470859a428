import type { HttpAnswer, NeutralRoute } from '@portcullis/http/exchange'
import { localProblem } from '@portcullis/http/local-accounts'
import { webExchange } from '@portcullis/http/web'
import type { Context } from 'hono'
import { observe, sendProblem } from '../problem/problems.js'
import type { HonoSecurity } from '../security/create-security.js'
import { securityOf } from '../security/request-context.js'
import type { AnyHono } from '../security/types.js'
import { MALFORMED_URL, routeParams } from './route-params.js'

/** The Hono context behind an exchange (what application callbacks receive). */
export interface HonoNative {
  readonly context: Context
}

/** Writes a neutral answer through the context: `Set-Cookie` values, headers, the JSON body or none. */
export function writeAnswer(c: Context, answer: HttpAnswer): Response {
  for (const cookie of answer.setCookies ?? []) c.header('set-cookie', cookie, { append: true })
  const headers = answer.headers ?? {}
  for (const [name, value] of Object.entries(headers)) c.header(name, value)
  const status = answer.status as 200
  if (answer.json === undefined) return c.body(null, status)
  const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
  if (!typed) c.header('content-type', 'application/json; charset=utf-8')
  return c.body(JSON.stringify(answer.json), status)
}

/**
 * Declares a neutral route table on the app, each route behind its `security.route(options)`: bodies
 * are read from the request stream up to the route's limit, every answer is `no-store`; an error of a
 * local-account route is rendered here (a typed error keeps its client-safe detail) after `onError` saw
 * it, any other goes to `app.onError`; a path parameter that does not percent-decode is 400
 * `request.malformed_url`. Call `security.ready(app)` after declaring them, as for any route.
 */
export function registerNeutralRoutes(
  app: AnyHono,
  security: HonoSecurity,
  routes: readonly NeutralRoute<HonoNative>[],
  onError: ((error: unknown, c: Context) => void) | undefined,
): void {
  for (const route of routes) {
    app.on(route.method, route.path, security.route(route.options), async (c: Context) => {
      c.header('cache-control', 'no-store')
      const params = routeParams(c)
      if (params === undefined) return sendProblem(c, MALFORMED_URL)
      try {
        const { exchange } = webExchange<HonoNative>({
          request: c.req.raw,
          params,
          security: securityOf(c),
          requestInfo: security.requestInfo(c),
          native: { context: c },
          appendSetCookie: (value) => c.header('set-cookie', value, { append: true }),
        })
        return writeAnswer(c, await route.handle(exchange))
      } catch (error) {
        if (route.errors !== 'local') throw error
        observe(onError, error, c)
        return sendProblem(c, localProblem(error))
      }
    })
  }
}
