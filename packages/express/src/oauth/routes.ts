import { readOptions } from '@portcullis/core/errors'
import { anonymous } from '@portcullis/core/policy'
import { json, urlencoded } from 'express'
import type { SecureRouter } from '../routing/secure-router.js'
import { logout, revoke, unlink } from './account-routes.js'
import { backchannelLogout } from './backchannel-route.js'
import { link, login, reauthenticate, revalidate, scopes } from './begin-routes.js'
import { callback } from './callback.js'
import type { OAuthRouteContext } from './context.js'
import { OAuthBindingCookie } from './cookies.js'
import { emitter, noStore } from './http.js'
import { oauthDocumentation } from './openapi.js'
import { OAUTH_MAX_BODY_BYTES, OAUTH_ROUTES_OPTIONS, type OAuthRoutesOptions } from './options.js'

/**
 * Registers the OAuth / OIDC routes of every provider of the lifecycle under
 * `{base}/auth/oauth/{provider}/`, on a router of `security` (so they get its policy evaluation,
 * problem+json errors and OpenAPI entries); mount the returned router with `app.use(router)`.
 *
 * | Route | Session | Does |
 * | --- | --- | --- |
 * | `GET login` | - | begins a sign-in |
 * | `GET callback` | per operation | completes any round trip, then 303 to `return_to` or JSON |
 * | `POST link` | yes | begins linking; step-up `oauth-link` |
 * | `POST scopes` | yes | begins a scope upgrade; step-up `oauth-scope-upgrade` |
 * | `POST links/{providerAccountId}/unlink` | yes | unlinks; step-up `oauth-unlink` |
 * | `POST revoke` | yes | revokes retained tokens; step-up `oauth-provider-token-management` |
 * | `POST logout` | yes | `signOut`, then the provider's end-session URL |
 * | `POST revalidate` | yes | begins a revalidation (no credential) |
 * | `POST reauthenticate/{purpose}` | yes | begins a reauthentication (OIDC providers, policy purposes only) |
 * | `POST backchannel-logout` | - | with `backchannelLogout`: the provider's back-channel logout (form `logout_token`) |
 *
 * Every response is `Cache-Control: no-store`. Bodies (JSON or forms) are at most `maxBodyBytes`; a larger
 * one is 413 `request.body_too_large`.
 */
export function createOAuthRoutes(options: OAuthRoutesOptions): SecureRouter {
  readOptions(options, 'createOAuthRoutes', OAUTH_ROUTES_OPTIONS)
  const { security, lifecycle } = options
  const providers = new Set(lifecycle.providers)
  const context: OAuthRouteContext = {
    options,
    lifecycle,
    providers,
    binding: new OAuthBindingCookie(options.cookies ?? {}),
    stepUp: security.stepUp,
    emit: emitter(options),
  }
  const docs = oauthDocumentation([...providers])
  const router = security.router(options.base === undefined ? {} : { prefix: options.base })
  // a body over the limit fails the parser with 413; the router's error handler renders it as
  // `request.body_too_large` (problemFor)
  const limit = options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES
  const body = [json({ limit }), urlencoded({ extended: false, limit })] as const
  const signedIn = options.auth === undefined ? {} : { auth: options.auth }
  const at = (rest: string) => `/auth/oauth/:provider/${rest}`

  router.get(at('login'), { auth: anonymous(), openapi: docs.login }, noStore, login(context))
  router.get(at('callback'), { auth: anonymous(), openapi: docs.callback }, noStore, callback(context))
  router.post(at('link'), { ...signedIn, openapi: docs.link }, noStore, ...body, link(context))
  router.post(at('scopes'), { ...signedIn, openapi: docs.scopes }, noStore, ...body, scopes(context))
  router.post(
    at('links/:providerAccountId/unlink'),
    { ...signedIn, openapi: docs.unlink },
    noStore,
    unlink(context),
  )
  router.post(at('revoke'), { ...signedIn, openapi: docs.revoke }, noStore, revoke(context))
  router.post(at('logout'), { ...signedIn, openapi: docs.logout }, noStore, logout(context))
  router.post(
    at('revalidate'),
    { ...signedIn, openapi: docs.revalidate },
    noStore,
    ...body,
    revalidate(context),
  )
  router.post(
    at('reauthenticate/:purpose'),
    { ...signedIn, openapi: docs.reauthenticate },
    noStore,
    ...body,
    reauthenticate(context),
  )
  if (options.backchannelLogout !== undefined) {
    router.post(
      at('backchannel-logout'),
      { auth: anonymous(), openapi: docs.backchannelLogout },
      noStore,
      urlencoded({ extended: false, limit }),
      backchannelLogout(context),
    )
  }
  return router
}
