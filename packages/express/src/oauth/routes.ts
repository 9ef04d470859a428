import { readOptions } from '@portcullis/core/errors'
import { oauthRouteTable } from '@portcullis/http/oauth'
import { type ExpressNative, registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import { OAUTH_ROUTES_OPTIONS, type OAuthRoutesOptions } from './options.js'

/**
 * Registers the OAuth / OIDC routes of every provider of the lifecycle under
 * `{base}/auth/oauth/{provider}/` (the route table of `@portcullis/http/oauth`), on a router of `security`
 * (so they get its policy evaluation, problem+json errors and OpenAPI entries); mount the returned router
 * with `app.use(router)`. Every response is `Cache-Control: no-store`. Bodies (JSON or forms) are at most
 * `maxBodyBytes`; a larger one is 413 `request.body_too_large`.
 */
export function createOAuthRoutes(options: OAuthRoutesOptions): SecureRouter {
  readOptions(options, 'createOAuthRoutes', OAUTH_ROUTES_OPTIONS)
  const { security, signIn, currentSession, signOut, renewSignIn, ...rest } = options
  const routes = oauthRouteTable<ExpressNative>({
    ...rest,
    stepUp: security.stepUp,
    signIn: (outcome, { native }) => signIn(outcome, native.request, native.response),
    currentSession: ({ native }) => currentSession(native.request),
    ...(signOut === undefined
      ? {}
      : { signOut: (session, { native }) => signOut(session, native.request, native.response) }),
    ...(renewSignIn === undefined
      ? {}
      : { renewSignIn: (change, { native }) => renewSignIn(change, native.request, native.response) }),
  })
  const router = security.router()
  registerNeutralRoutes(router, routes, undefined)
  return router
}
