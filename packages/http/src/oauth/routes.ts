import { anonymous } from '@portcullis/core/policy'
import { OAuthBindingCookie } from '../cookies/cookies.js'
import type { NeutralRoute } from '../exchange/exchange.js'
import { logout, revoke, unlink } from './account-routes.js'
import { link, login, reauthenticate, revalidate, scopes } from './begin-routes.js'
import { callback } from './callback.js'
import type { OAuthRouteContext } from './context.js'
import { emitter } from './http.js'
import { oauthDocumentation } from './openapi.js'
import type { OAuthRouteTableOptions } from './options.js'

/**
 * The OAuth / OIDC routes of every provider of the lifecycle under `{base}/auth/oauth/{provider}/`, as a
 * framework-neutral route table (errors go to the adapter's problem error handling):
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
 *
 * Every response is `Cache-Control: no-store`.
 */
export function oauthRouteTable<N>(options: OAuthRouteTableOptions<N>): NeutralRoute<N>[] {
  const { lifecycle } = options
  const providers = new Set(lifecycle.providers)
  const context: OAuthRouteContext<N> = {
    options,
    lifecycle,
    providers,
    binding: new OAuthBindingCookie(options.cookies ?? {}),
    emit: emitter(options),
  }
  const docs = oauthDocumentation([...providers])
  const signedIn = options.auth === undefined ? {} : { auth: options.auth }
  const base = options.base ?? ''
  const route = (
    method: NeutralRoute<N>['method'],
    rest: string,
    routeOptions: NeutralRoute<N>['options'],
    handle: NeutralRoute<N>['handle'],
  ): NeutralRoute<N> => ({
    method,
    path: `${base}/auth/oauth/:provider/${rest}`,
    options: routeOptions,
    handle,
    errors: 'default',
  })
  return [
    route('GET', 'login', { auth: anonymous(), openapi: docs.login }, login(context)),
    route('GET', 'callback', { auth: anonymous(), openapi: docs.callback }, callback(context)),
    route('POST', 'link', { ...signedIn, openapi: docs.link }, link(context)),
    route('POST', 'scopes', { ...signedIn, openapi: docs.scopes }, scopes(context)),
    route('POST', 'links/:providerAccountId/unlink', { ...signedIn, openapi: docs.unlink }, unlink(context)),
    route('POST', 'revoke', { ...signedIn, openapi: docs.revoke }, revoke(context)),
    route('POST', 'logout', { ...signedIn, openapi: docs.logout }, logout(context)),
    route('POST', 'revalidate', { ...signedIn, openapi: docs.revalidate }, revalidate(context)),
    route(
      'POST',
      'reauthenticate/:purpose',
      { ...signedIn, openapi: docs.reauthenticate },
      reauthenticate(context),
    ),
  ]
}
