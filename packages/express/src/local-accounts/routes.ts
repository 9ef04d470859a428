import { readOptions } from '@portcullis/core/errors'
import type {
  LocalAccounts,
  LocalSignIn,
  LocalTransport,
  SessionSignIn,
  TokenSignIn,
} from '@portcullis/core/local-accounts'
import {
  type EpochChange,
  establishSignIn,
  LOCAL_ROUTE_TABLE_OPTIONS,
  type LocalRouteTableOptions,
  localCsrf,
  localRouteTable,
  renewSignIn,
  rotateSession,
} from '@portcullis/http/local-accounts'
import type { Request, RequestHandler, Response } from 'express'
import { sendProblem } from '../problem/send-problem.js'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'
import { singleHeader } from '../security/credential-source.js'
import { securityOf } from '../security/request-context.js'
import { requestInfo } from './respond.js'

export interface LocalAccountRoutesOptions extends LocalRouteTableOptions {
  /** The service (`new LocalAccounts({ profile, ... })`); its `mechanisms` must be registered with `security`. */
  readonly local: LocalAccounts
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router'>
  /** Observes every error a local-account route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

/**
 * The local-account middleware: mount it with `app.use(...)` after `security.middleware` and before the
 * application's routes. It refuses cross-site unsafe requests that carry the session cookie (403
 * `local.csrf_refused`) for every route behind it, then serves the `{base}/auth/...` routes.
 */
export interface LocalAccountRoutes extends RequestHandler {
  /**
   * Establishes a local sign-in for an account authenticated some other way (OAuth callbacks): a session
   * (the cookie is set on `response`, replacing the one the request came with) or a token pair (returned;
   * the caller sends it). Nothing is sent.
   */
  establishSignIn(
    request: Request,
    response: Response,
    input: { readonly accountId: string; readonly transport?: LocalTransport },
  ): Promise<LocalSignIn>
  /** A new session id for the request's session (after a privilege change); sets the cookie. */
  rotateSession(request: Request, response: Response): Promise<SessionSignIn>
  /**
   * After the account's security epoch moved outside these routes (an OAuth unlink: pass it as the OAuth
   * routes' `renewSignIn`): this instance believes the new epoch at once, every other session and token
   * family of the account ends, and the caller gets a fresh session (cookie set) or token pair (returned).
   */
  renewSignIn(
    request: Request,
    response: Response,
    change: EpochChange,
  ): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }>
}

const OPTIONS = {
  ...LOCAL_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The generated routes under `{base}/auth/` for the service's profile (the route table of
 * `@portcullis/http/local-accounts`), registered on routers of `security`, behind the CSRF check.
 */
export function localAccountRoutes(options: LocalAccountRoutesOptions): LocalAccountRoutes {
  readOptions(options, 'localAccountRoutes', OPTIONS)
  const { local, onError } = options
  const router: SecureRouter = options.security.router()
  registerNeutralRoutes(router, localRouteTable(options), onError)
  const csrf = localCsrf(local)

  // Every unsafe request carrying the session cookie passes the CSRF check before any route runs.
  const guard: RequestHandler = (request, response, next) => {
    const refused = csrf.guard({
      method: request.method,
      header: (name) => singleHeader(request, name),
      cookieHeader: request.headers.cookie,
      requestInfo: requestInfo(request),
    })
    if (refused !== undefined) {
      sendProblem(response, refused)
      return
    }
    router(request, response, next)
  }

  const signInRequest = (request: Request) => ({
    cookieHeader: request.headers.cookie,
    requestInfo: requestInfo(request),
  })
  return Object.assign(guard, {
    async establishSignIn(
      request: Request,
      response: Response,
      input: { readonly accountId: string; readonly transport?: LocalTransport },
    ) {
      const signIn = await establishSignIn(local, signInRequest(request), input)
      if (signIn.transport === 'session') response.append('Set-Cookie', signIn.setCookie)
      return signIn
    },
    async renewSignIn(request: Request, response: Response, change: EpochChange) {
      const renewed = await renewSignIn(
        local,
        { ...signInRequest(request), evidence: securityOf(request).evidence },
        change,
      )
      if (renewed.session !== undefined) response.append('Set-Cookie', renewed.session.setCookie)
      return renewed
    },
    async rotateSession(request: Request, response: Response) {
      const signIn = await rotateSession(local, signInRequest(request))
      response.append('Set-Cookie', signIn.setCookie)
      return signIn
    },
  })
}
