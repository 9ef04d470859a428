import { isPortcullisError } from '@portcullis/core/errors'
import { OIDCError, OIDCErrorCodes } from '@portcullis/core/oidc'
import { RepeatedFormFieldProblem } from '../body/body.js'
import { BODY_TOO_LARGE_STATUS } from '../body/body-limit.js'
import type { HttpAnswer, HttpExchange } from '../exchange/exchange.js'
import { HttpProblem } from '../problem/problem.js'
import type { OAuthRouteContext } from './context.js'
import { providerOf } from './http.js'
import { OAUTH_MAX_BODY_BYTES } from './options.js'

const FORM = 'application/x-www-form-urlencoded'

/** Whether the request's body is a form (`application/x-www-form-urlencoded`, parameters allowed). */
function isForm(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === FORM
}

/** The refusal every malformed logout request gets (400 `oidc.logout_token.rejected`). */
function rejected(reason: string): OIDCError {
  return new OIDCError(OIDCErrorCodes.logoutTokenRejected, 'the logout token was rejected', { reason })
}

/**
 * Why a body the exchange would not read or parse carries no logout token: `body-too-large` (answered
 * 413), `content-type` (not a form), `logout_token-count` (the field twice), `form-malformed` (not UTF-8,
 * another field twice). Undefined for anything that is not a refused body (an outage, a bug).
 */
function bodyRefusal(error: unknown, contentType: string | undefined): string | undefined {
  if (!(error instanceof HttpProblem)) return undefined
  if (error.status === BODY_TOO_LARGE_STATUS) return 'body-too-large'
  if (error.status !== 400 && error.status !== 415) return undefined
  if (!isForm(contentType)) return 'content-type'
  if (error instanceof RepeatedFormFieldProblem && error.field === 'logout_token') return 'logout_token-count'
  return 'form-malformed'
}

/**
 * `POST backchannel-logout`: the provider's back-channel logout (OpenID Connect Back-Channel Logout 1.0).
 * All the work on the token is the core `BackchannelLogout`'s; this hands it the provider and the form
 * body (at most `maxBodyBytes`) and answers 200 with an empty body. Every refusal (section 2.8) is 400
 * `oidc.logout_token.rejected`, whatever failed: a body that is not a form (JSON, `text/plain`, none with
 * bytes), a malformed form, `logout_token` missing or given twice, a token that fails verification or
 * was seen before. A body over the limit stays 413 `request.body_too_large`. Each refusal, the 413
 * included, emits `oauth.backchannel_logout_refused` with the reason (never the token). A JWKS or store
 * outage is 503 and emits nothing.
 */
export function backchannelLogout<N>(
  context: OAuthRouteContext<N>,
): (exchange: HttpExchange<N>) => Promise<HttpAnswer> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const handler = context.options.backchannelLogout
    if (handler === undefined) throw new Error('backchannel-logout route registered without a handler')
    const refused = (reason: string) => {
      context.emit({ type: 'oauth.backchannel_logout_refused', provider, reason })
    }
    const contentType = exchange.header('content-type')
    let body: unknown
    try {
      body = await exchange.body(context.options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES)
    } catch (error) {
      const reason = bodyRefusal(error, contentType)
      if (reason === undefined) throw error
      refused(reason)
      throw reason === 'body-too-large' ? error : rejected(reason)
    }
    // A body an application parser read as something else (JSON, text) is no form either.
    if (body !== undefined && !isForm(contentType)) {
      refused('content-type')
      throw rejected('content-type')
    }
    try {
      const { sessions } = await handler.handle({ provider, form: body ?? {} })
      context.emit({ type: 'oauth.backchannel_logout', provider, sessions })
    } catch (error) {
      if (isPortcullisError(error) && error.errorClass === 'invalid-input') {
        const reason = (error as { reason?: unknown }).reason
        refused(typeof reason === 'string' ? reason : error.code)
      }
      throw error
    }
    return { status: 200, headers: { 'Cache-Control': 'no-store' } }
  }
}
