import { readOptions } from '@portcullis/core/errors'
import type { LocalSignIn, SessionSignIn, TokenSignIn } from '@portcullis/core/local-accounts'
import {
  type EpochChange,
  type EstablishSignInInput,
  establishSignIn,
  LOCAL_ROUTE_TABLE_OPTIONS,
  type LocalRouteTableOptions,
  localCsrf,
  localRouteTable,
  renewSignIn,
  rotateSession,
} from '@portcullis/http/local-accounts'
import { problemResponse } from '@portcullis/http/web'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import { securityOf } from '../security/request-context.js'
import type { AnyHono } from '../security/types.js'

export interface LocalAccountRoutesOptions extends LocalRouteTableOptions {
  /** Observes every error a local-account route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

/** What `localAccountRoutes` returns: sign-in helpers for the application's own routes (OAuth callbacks). */
export interface LocalAccountRoutes {
  /**
   * Establishes a local sign-in for an account authenticated some other way: a session (the cookie is set
   * on the response, replacing the one the request came with) or a token pair (returned; the caller sends it).
   */
  establishSignIn(c: Context, input: EstablishSignInInput): Promise<LocalSignIn>
  /** A new session id for the request's session (after a privilege change); sets the cookie. */
  rotateSession(c: Context): Promise<SessionSignIn>
  /**
   * After the account's security epoch moved outside these routes (an OAuth unlink: pass it as the OAuth
   * routes' `renewSignIn`): this instance believes the new epoch at once, every other session and token
   * family of the account ends, and the caller gets a fresh session (cookie set) or token pair (returned).
   */
  renewSignIn(
    c: Context,
    change: EpochChange,
  ): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }>
}

const OPTIONS = { ...LOCAL_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the local-account routes under `{base}/auth/` (after `app.use(security.middleware)`, before your
 * own routes) and the CSRF check in front of every route declared after it: an unsafe request carrying
 * the session cookie must pass it (403 `local.csrf_refused`).
 */
export function localAccountRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: LocalAccountRoutesOptions,
): LocalAccountRoutes {
  readOptions(options, 'localAccountRoutes', OPTIONS)
  const { local } = options
  const csrf = localCsrf(local)
  app.use(async (c, next) => {
    const refused = csrf.guard({
      method: c.req.method,
      header: (name) => c.req.header(name),
      cookieHeader: c.req.header('cookie'),
      requestInfo: security.requestInfo(c),
    })
    if (refused !== undefined) return problemResponse(refused)
    await next()
  })
  registerNeutralRoutes(app, security, localRouteTable(options), options.onError)
  const signInRequest = (c: Context) => ({
    cookieHeader: c.req.header('cookie'),
    requestInfo: security.requestInfo(c),
  })
  return {
    async establishSignIn(c, input) {
      const signIn = await establishSignIn(local, signInRequest(c), input)
      if (signIn.transport === 'session') c.header('set-cookie', signIn.setCookie, { append: true })
      return signIn
    },
    async renewSignIn(c, change) {
      const renewed = await renewSignIn(
        local,
        { ...signInRequest(c), evidence: securityOf(c).evidence },
        change,
      )
      if (renewed.session !== undefined) c.header('set-cookie', renewed.session.setCookie, { append: true })
      return renewed
    },
    async rotateSession(c) {
      const signIn = await rotateSession(local, signInRequest(c))
      c.header('set-cookie', signIn.setCookie, { append: true })
      return signIn
    },
  }
}
