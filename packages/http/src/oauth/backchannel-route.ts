import { isPortcullisError } from '@portcullis/core/errors'
import type { HttpAnswer, HttpExchange } from '../exchange/exchange.js'
import type { OAuthRouteContext } from './context.js'
import { providerOf } from './http.js'
import { OAUTH_MAX_BODY_BYTES } from './options.js'

const FORM = 'application/x-www-form-urlencoded'

/** Whether the request's body is a form (`application/x-www-form-urlencoded`, parameters allowed). */
function isForm(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === FORM
}

/**
 * `POST backchannel-logout`: the provider's back-channel logout (OpenID Connect Back-Channel Logout 1.0).
 * All the work is the core `BackchannelLogout`'s; this only hands it the provider and the form body (at
 * most `maxBodyBytes`; any other body is an empty form, so a refusal) and answers 200 with an empty body.
 * Refusals render as problem+json (400 `oidc.logout_token.rejected`, 503) through the adapter.
 */
export function backchannelLogout<N>(
  context: OAuthRouteContext<N>,
): (exchange: HttpExchange<N>) => Promise<HttpAnswer> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const handler = context.options.backchannelLogout
    if (handler === undefined) throw new Error('backchannel-logout route registered without a handler')
    const body = await exchange.body(context.options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES)
    const form = isForm(exchange.header('content-type')) ? body : {}
    try {
      const { sessions } = await handler.handle({ provider, form })
      context.emit({ type: 'oauth.backchannel_logout', provider, sessions })
    } catch (error) {
      if (isPortcullisError(error) && error.errorClass === 'invalid-input') {
        const reason = (error as { reason?: unknown }).reason
        context.emit({
          type: 'oauth.backchannel_logout_refused',
          provider,
          reason: typeof reason === 'string' ? reason : error.code,
        })
      }
      throw error
    }
    return { status: 200, headers: { 'Cache-Control': 'no-store' } }
  }
}
