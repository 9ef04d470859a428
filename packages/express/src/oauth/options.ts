import type { OptionsShape } from '@portcullis/core/errors'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from '@portcullis/core/local-accounts'
import type { LocalSession, OAuthLifecycleService } from '@portcullis/core/oidc'
import type { AuthPolicy } from '@portcullis/core/policy'
import type { OAuthCookieOptions } from '@portcullis/http/cookies'
import { OAUTH_ROUTE_OPTIONS, type OAuthEpochChange, type OAuthSignIn } from '@portcullis/http/oauth'
import type { Request, Response } from 'express'
import type { Security } from '../security/create-security.js'

export type { OAuthSignIn } from '@portcullis/http/oauth'
export { OAUTH_MAX_BODY_BYTES } from '@portcullis/http/oauth'

/**
 * The current local session of a request, from its *verified* authentication (never from a header or
 * body the client chose), or undefined when there is none. Throw to answer with a problem (an
 * unavailable session store is a 503, see `currentLocalSession`).
 */
export type CurrentSession = (
  request: Request,
) => LocalSession | undefined | Promise<LocalSession | undefined>

export interface OAuthRoutesOptions {
  /** The security instance the routes are registered with (policy, OpenAPI, problem+json, step-up transport). */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  readonly lifecycle: OAuthLifecycleService
  /** Prefix of every route: `{base}/auth/oauth/{provider}/...`. Default none. */
  readonly base?: string
  /**
   * Establishes the local session or token pair of the signed-in account (set its cookie on `response`).
   * Whatever it returns is sent as `signIn` to clients that asked for JSON, so return only what the client
   * should see (e.g. the token response of a token sign-in, never a session id).
   */
  readonly signIn: (signIn: OAuthSignIn, request: Request, response: Response) => unknown
  /** The request's current local session; see `currentLocalSession` for the usual wiring. */
  readonly currentSession: CurrentSession
  /**
   * The policy of the routes that need a signed-in user (link, scopes, unlink, revoke, logout, revalidate,
   * reauthenticate): enforced before `currentSession` and documented in OpenAPI. Default: the security
   * instance's default policy.
   */
  readonly auth?: AuthPolicy
  /** Ends the local session on `POST logout`, before the provider's end-session URL is answered. */
  readonly signOut?: (session: LocalSession, request: Request, response: Response) => unknown
  /**
   * Called after an unlink moved the account's security epoch (every session and token family made
   * before is over): keep the caller signed in at the new epoch, usually
   * `(change, request, response) => localRoutes.renewSignIn(request, response, change)`. Without it the
   * caller's session ends with the others.
   */
  readonly renewSignIn?: (change: OAuthEpochChange, request: Request, response: Response) => unknown
  /** Where `POST logout` sends the browser when the provider has no end-session URL. Default `/`. */
  readonly afterLogout?: string
  /** Where a browser `POST links/{id}/unlink` is sent once done (JSON clients get the outcome). Default `/`. */
  readonly afterUnlink?: string
  /**
   * Largest accepted request body of the routes that read one (link, scopes, revalidate, reauthenticate);
   * a larger one is 413 `request.body_too_large`. Default 16 KiB; at most 1 MiB.
   */
  readonly maxBodyBytes?: number
  /** Development relaxation of the browser-binding cookie (see `OAuthCookieOptions`). */
  readonly cookies?: OAuthCookieOptions
  /** Receives `oauth.*` and `step_up.*` events; a failing sink never fails a request. */
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
}

export const OAUTH_ROUTES_OPTIONS: OptionsShape<OAuthRoutesOptions> = {
  security: {
    required: true,
    kind: 'object',
    check: (value: unknown) =>
      typeof (value as { router?: unknown }).router === 'function' &&
      typeof (value as { stepUp?: unknown }).stepUp === 'object'
        ? undefined
        : 'must be the result of createSecurity',
  },
  ...OAUTH_ROUTE_OPTIONS,
}
