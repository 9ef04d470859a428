import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from '@portcullis/core/local-accounts'
import type { LocalSession, OAuthLifecycleService, VerifiedProviderIdentity } from '@portcullis/core/oidc'
import type { AuthPolicy } from '@portcullis/core/policy'
import type { Request, Response } from 'express'
import type { Security } from '../security/create-security.js'
import { OAUTH_COOKIE_OPTIONS, type OAuthCookieOptions } from './cookies.js'

/** What `signIn` is told after a verified OAuth / OIDC login. Secret-free. */
export interface OAuthSignIn {
  readonly provider: string
  /** The local account the provider identity is linked to. */
  readonly accountId: string
  /** True when this login created the account (`provisionUnknown`). */
  readonly provisioned: boolean
  readonly providerAccountId: string
  readonly identity: VerifiedProviderIdentity
  /** The allow-listed target recorded when the login began. */
  readonly returnTo: string
}

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
  readonly renewSignIn?: (
    change: {
      readonly accountId: string
      readonly securityEpoch: number
      readonly reason: 'identity_unlinked'
    },
    request: Request,
    response: Response,
  ) => unknown
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

/** The default largest request body of the OAuth routes: 16 KiB. */
export const OAUTH_MAX_BODY_BYTES = 16 * 1024

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
  lifecycle: {
    required: true,
    kind: 'object',
    check: (value: unknown) =>
      typeof (value as { begin?: unknown }).begin === 'function' &&
      typeof (value as { complete?: unknown }).complete === 'function'
        ? undefined
        : 'must be an OAuthLifecycleService',
  },
  base: { kind: 'string', code: 'route.invalid_prefix' },
  signIn: { required: true, kind: 'function' },
  currentSession: { required: true, kind: 'function' },
  auth: { kind: 'object' },
  signOut: { kind: 'function' },
  renewSignIn: { kind: 'function' },
  afterLogout: {
    kind: 'string',
    check: (value: unknown) =>
      typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !/[\s\\]/.test(value)
        ? undefined
        : 'must be a local path',
  },
  afterUnlink: {
    kind: 'string',
    check: (value: unknown) =>
      typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !/[\s\\]/.test(value)
        ? undefined
        : 'must be a local path',
  },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  cookies: { kind: 'object', shape: OAUTH_COOKIE_OPTIONS },
  events: { kind: 'function' },
  onEventSinkError: { kind: 'function' },
}
