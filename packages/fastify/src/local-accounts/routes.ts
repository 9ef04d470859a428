import { readOptions } from '@portcullis/core/errors'
import type { LocalSignIn, LocalTransport, SessionSignIn, TokenSignIn } from '@portcullis/core/local-accounts'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
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
import { rawHeader } from '@portcullis/http/security'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendProblem } from '../problem/send-problem.js'
import { registerNeutralRoutes, requestInfo } from '../routing/neutral-routes.js'
import { securityOf } from '../security/request-context.js'

export interface LocalAccountRoutesOptions extends LocalRouteTableOptions {
  /** Observes every error a local-account route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

/** What `localAccountRoutes` returns: sign-in helpers for the application's own routes (OAuth callbacks). */
export interface LocalAccountRoutes {
  /**
   * Establishes a local sign-in for an account authenticated some other way: a session (the cookie is set
   * on `reply`, replacing the one the request came with) or a token pair (returned; the caller sends it).
   */
  establishSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    input: { readonly accountId: string; readonly transport?: LocalTransport },
  ): Promise<LocalSignIn>
  /** A new session id for the request's session (after a privilege change); sets the cookie. */
  rotateSession(request: FastifyRequest, reply: FastifyReply): Promise<SessionSignIn>
  /**
   * After the account's security epoch moved outside these routes (an OAuth unlink: pass it as the OAuth
   * routes' `renewSignIn`): this instance believes the new epoch at once, every other session and token
   * family of the account ends, and the caller gets a fresh session (cookie set) or token pair (returned).
   */
  renewSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    change: EpochChange,
  ): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }>
}

const OPTIONS = { ...LOCAL_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the local-account routes under `{base}/auth/` (register the `portcullis` plugin first: they are
 * Portcullis routes with their own policy and OpenAPI entries) and the CSRF check in front of every route
 * of the instance: an unsafe request carrying the session cookie must pass it (403 `local.csrf_refused`).
 */
export function localAccountRoutes(
  fastify: FastifyInstance,
  options: LocalAccountRoutesOptions,
): LocalAccountRoutes {
  readOptions(options, 'localAccountRoutes', OPTIONS)
  const { local } = options
  const csrf = localCsrf(local)
  fastify.addHook('onRequest', (request, reply, done) => {
    const refused = csrf.guard({
      method: request.method,
      header: (name) => rawHeader(request.raw.rawHeaders, name),
      cookieHeader: request.headers.cookie,
      requestInfo: requestInfo(request),
    })
    if (refused === undefined) done()
    else sendProblem(reply, refused)
  })
  registerNeutralRoutes(fastify, localRouteTable(options), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
  const signInRequest = (request: FastifyRequest) => ({
    cookieHeader: request.headers.cookie,
    requestInfo: requestInfo(request),
  })
  return {
    async establishSignIn(request, reply, input) {
      const signIn = await establishSignIn(local, signInRequest(request), input)
      if (signIn.transport === 'session') reply.header('set-cookie', signIn.setCookie)
      return signIn
    },
    async renewSignIn(request, reply, change) {
      const renewed = await renewSignIn(
        local,
        { ...signInRequest(request), evidence: securityOf(request).evidence },
        change,
      )
      if (renewed.session !== undefined) reply.header('set-cookie', renewed.session.setCookie)
      return renewed
    },
    async rotateSession(request, reply) {
      const signIn = await rotateSession(local, signInRequest(request))
      reply.header('set-cookie', signIn.setCookie)
      return signIn
    },
  }
}
