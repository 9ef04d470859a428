import { isPortcullisError } from '@portcullis/core/errors'
import type { Request, Response } from 'express'
import type { OAuthRouteContext } from './context.js'
import { providerOf } from './http.js'

/**
 * `POST backchannel-logout`: the provider's back-channel logout (OpenID Connect Back-Channel Logout 1.0).
 * All the work is the core `BackchannelLogout`'s; this only hands it the provider and the parsed form and
 * answers 200 with an empty body. Refusals render as problem+json (400, 503) through the router.
 */
export function backchannelLogout(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const handler = context.options.backchannelLogout
    if (handler === undefined) throw new Error('backchannel-logout route registered without a handler')
    try {
      const { sessions } = await handler.handle({ provider, form: request.body })
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
    response.status(200).end()
  }
}
