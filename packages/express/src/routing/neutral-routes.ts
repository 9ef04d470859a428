import { readRequestBody } from '@portcullis/http/body'
import type { HttpAnswer, HttpExchange, NeutralRoute } from '@portcullis/http/exchange'
import { localProblem } from '@portcullis/http/local-accounts'
import type { Request, RequestHandler, Response } from 'express'
import { sendProblem } from '../problem/send-problem.js'
import { singleHeader } from '../security/credential-source.js'
import { securityOf } from '../security/request-context.js'
import type { SecureRouter } from './secure-router.js'

/** The Express request and response behind an exchange (what application callbacks receive). */
export interface ExpressNative {
  readonly request: Request
  readonly response: Response
}

/** The framework-neutral view of an Express request for a generated route. */
export function expressExchange(request: Request, response: Response): HttpExchange<ExpressNative> {
  const url = request.originalUrl
  const query = url.indexOf('?')
  return {
    method: request.method,
    params: request.params as Record<string, string>,
    query: query === -1 ? '' : url.slice(query + 1),
    header: (name) => singleHeader(request, name),
    cookieHeader: request.headers.cookie,
    get security() {
      return securityOf(request)
    },
    requestInfo: {
      peerAddress: request.socket.remoteAddress,
      forwardedFor: request.headers['x-forwarded-for'],
      userAgent: request.headers['user-agent'],
    },
    get wantsJson() {
      return request.accepts(['text/html', 'application/json']) === 'application/json'
    },
    // A body an application-level parser already read (`request.body` set) is used as it is.
    body: async (limit) =>
      request.body !== undefined
        ? request.body
        : readRequestBody(
            request,
            {
              contentLength: request.headers['content-length'],
              contentType: request.headers['content-type'],
            },
            limit,
          ),
    appendSetCookie: (value) => {
      response.append('Set-Cookie', value)
    },
    native: { request, response },
  }
}

/** Writes a neutral answer: `Set-Cookie` values appended, headers, then the JSON body or nothing. */
export function writeAnswer(response: Response, answer: HttpAnswer): void {
  for (const cookie of answer.setCookies ?? []) response.append('Set-Cookie', cookie)
  for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value)
  response.status(answer.status)
  if (answer.json === undefined) response.end()
  else response.json(answer.json)
}

/**
 * The Express handler of a neutral route: `Cache-Control: no-store` on every answer; an error of a
 * local-account route is rendered as a problem here (so a typed error keeps its client-safe detail),
 * any other goes to the router's problem error handler.
 */
export function neutralHandler(
  route: NeutralRoute<ExpressNative>,
  onError: ((error: unknown, request: Request) => void) | undefined,
): RequestHandler {
  return (request, response, next) => {
    response.setHeader('Cache-Control', 'no-store')
    route.handle(expressExchange(request, response)).then(
      (answer) => writeAnswer(response, answer),
      (error: unknown) => {
        // errors of other generated routes go to the router's problem error handler (and its onError)
        if (route.errors !== 'local') {
          next(error)
          return
        }
        try {
          onError?.(error, request)
        } catch {
          // A failing observer must not change the answer.
        }
        sendProblem(response, localProblem(error))
      },
    )
  }
}

/** Registers every route of a neutral route table on a secure router (prefix-less: paths are full). */
export function registerNeutralRoutes(
  router: SecureRouter,
  routes: readonly NeutralRoute<ExpressNative>[],
  onError: ((error: unknown, request: Request) => void) | undefined,
  before: readonly RequestHandler[] = [],
): void {
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options'
    router[method](route.path, route.options, ...before, neutralHandler(route, onError))
  }
}
