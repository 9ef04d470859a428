import { type OptionsShape, readOptions } from '@portcullis/core/errors'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from '@portcullis/core/local-accounts'
import type { BackchannelLogout, LocalSession, OAuthLifecycleService } from '@portcullis/core/oidc'
import type { AuthPolicy } from '@portcullis/core/policy'
import type { OAuthCookieOptions } from '@portcullis/http/cookies'
import {
  localSessionReader,
  OAUTH_ROUTE_OPTIONS,
  type OAuthEpochChange,
  type OAuthSignIn,
  oauthRouteTable,
} from '@portcullis/http/oauth'
import type { Context } from 'hono'
import { type HonoNative, registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

/** The current local session of a request, from its verified authentication (see `currentLocalSession`). */
export type CurrentSession = (c: Context) => LocalSession | undefined | Promise<LocalSession | undefined>

export interface OAuthRoutesOptions {
  readonly lifecycle: OAuthLifecycleService
  /** Prefix of every route: `{base}/auth/oauth/{provider}/...`. Default none. */
  readonly base?: string
  /**
   * Establishes the local session or token pair of the signed-in account (set its cookie with
   * `c.header('set-cookie', value, { append: true })`).
   * Whatever it returns is sent as `signIn` to clients that asked for JSON, so return only what the client
   * should see.
   */
  readonly signIn: (signIn: OAuthSignIn, c: Context) => unknown
  /** The request's current local session; see `currentLocalSession` for the usual wiring. */
  readonly currentSession: CurrentSession
  /** The policy of the routes that need a signed-in user. Default: the security instance's default policy. */
  readonly auth?: AuthPolicy
  /** Ends the local session on `POST logout`, before the provider's end-session URL is answered. */
  readonly signOut?: (session: LocalSession, c: Context) => unknown
  /** Keeps the caller signed in after an unlink moved the account's security epoch (`localRoutes.renewSignIn`). */
  readonly renewSignIn?: (change: OAuthEpochChange, c: Context) => unknown
  /** Largest accepted request body of the routes that read one; over it 413. Default 16 KiB. */
  readonly maxBodyBytes?: number
  /** Where `POST logout` sends the browser when the provider has no end-session URL. Default `/`. */
  readonly afterLogout?: string
  /** Where a browser `POST links/{id}/unlink` is sent once done. Default `/`. */
  readonly afterUnlink?: string
  /** Development relaxation of the browser-binding cookie (see `OAuthCookieOptions`). */
  readonly cookies?: OAuthCookieOptions
  /**
   * Enables `POST {base}/auth/oauth/{provider}/backchannel-logout` (OpenID Connect Back-Channel Logout 1.0):
   * register that URL as the client's `backchannel_logout_uri` at the provider. Sign in with
   * `establishSignIn({ providerSession: signIn.identity })` so the provider's sessions can be named.
   */
  readonly backchannelLogout?: BackchannelLogout
  /** Receives `oauth.*` and `step_up.*` events; a failing sink never fails a request. */
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
}

const OPTIONS: OptionsShape<OAuthRoutesOptions> = OAUTH_ROUTE_OPTIONS

/**
 * Adds the OAuth / OIDC routes of every provider of the lifecycle under `{base}/auth/oauth/{provider}/`
 * (Portcullis routes, with the security instance's policy, step-up transport, problem+json errors and
 * OpenAPI entries; call `security.ready(app)` after them). Every response is `Cache-Control: no-store`.
 */
export function createOAuthRoutes(app: AnyHono, security: HonoSecurity, options: OAuthRoutesOptions): void {
  readOptions(options, 'createOAuthRoutes', OPTIONS)
  const { signIn, currentSession, signOut, renewSignIn, ...rest } = options
  const routes = oauthRouteTable<HonoNative>({
    ...rest,
    stepUp: security.stepUp,
    signIn: (outcome, { native }) => signIn(outcome, native.context),
    currentSession: ({ native }) => currentSession(native.context),
    ...(signOut === undefined ? {} : { signOut: (session, { native }) => signOut(session, native.context) }),
    ...(renewSignIn === undefined
      ? {}
      : { renewSignIn: (change, { native }) => renewSignIn(change, native.context) }),
  })
  registerNeutralRoutes(app, security, routes, undefined)
}

/**
 * `currentSession` for the OAuth routes, wired to the local-accounts mechanisms: evaluates `policy`
 * (default `required()`) against the request's memoized authentication and reads the session from its
 * evidence. Nothing presented or a rejected credential is "no session"; an unavailable store is a 503.
 */
export function currentLocalSession(
  security: Pick<HonoSecurity, 'evaluator' | 'evaluation'>,
  policy?: AuthPolicy,
): CurrentSession {
  return localSessionReader(security, policy)
}
