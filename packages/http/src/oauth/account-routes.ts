import { OAUTH_STEP_UP_PURPOSES } from '@portcullis/core/oidc'
import { type HttpAnswer, type HttpExchange, jsonAnswer, seeOther } from '../exchange/exchange.js'
import { HttpProblem } from '../problem/problem.js'
import { type OAuthRouteContext, requireSession } from './context.js'
import { providerOf, stepUpTokenOf } from './http.js'

type Handler<N> = (exchange: HttpExchange<N>) => Promise<HttpAnswer>

/**
 * `POST links/{providerAccountId}/unlink`: needs a step-up credential `oauth-unlink`. A browser is sent
 * to `afterUnlink` (303); a client that asks for JSON gets the outcome.
 */
export function unlink<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await requireSession(context, exchange)
    const purpose = OAUTH_STEP_UP_PURPOSES.unlink
    const outcome = await context.lifecycle.unlink({
      provider,
      session,
      providerAccountId: String(exchange.params.providerAccountId),
      stepUpToken: stepUpTokenOf(exchange, context.options.stepUp, purpose),
    })
    if (outcome.status === 'not-found') {
      throw new HttpProblem({ status: 404, code: 'oauth.link.not_found', detail: 'Not found' })
    }
    if (outcome.status === 'final-method') {
      throw new HttpProblem({
        status: 409,
        code: 'oauth.link.final_method',
        detail: 'The last way to sign in cannot be removed',
      })
    }
    const { accountId, sessionHandle } = session
    context.emit({ type: 'step_up.consumed', accountId, purpose, sessionHandle })
    context.emit({
      type: 'oauth.unlinked',
      accountId,
      provider,
      ...(context.lifecycle.writesSecurityNotices ? { notified: true } : {}),
    })
    const { securityEpoch } = outcome
    await context.options.renewSignIn?.({ accountId, securityEpoch, reason: 'identity_unlinked' }, exchange)
    if (!exchange.wantsJson) return seeOther(context.options.afterUnlink ?? '/')
    return jsonAnswer({ status: 'unlinked', provider, providerAccountId: outcome.providerAccountId })
  }
}

/** `POST revoke`: revokes the retained provider tokens; needs `oauth-provider-token-management`. */
export function revoke<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await requireSession(context, exchange)
    const purpose = OAUTH_STEP_UP_PURPOSES.tokenManagement
    const outcome = await context.lifecycle.revokeProviderTokens({
      provider,
      session,
      stepUpToken: stepUpTokenOf(exchange, context.options.stepUp, purpose),
    })
    const { accountId, sessionHandle } = session
    context.emit({ type: 'step_up.consumed', accountId, purpose, sessionHandle })
    const pending = outcome.status === 'revocation-pending'
    if (outcome.status !== 'nothing-to-revoke') {
      context.emit({ type: 'oauth.tokens_revoked', accountId, provider, pending })
    }
    // 202: the local side is done, the provider is retried by `drainRevocationRetries`.
    return jsonAnswer({ status: outcome.status }, pending ? 202 : 200)
  }
}

/**
 * `POST logout`: ends the local session (`signOut`), then sends the browser to the provider's
 * end-session endpoint (RP-initiated logout) or to `afterLogout`; JSON clients get `{ endSessionUrl }`.
 */
export function logout<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await requireSession(context, exchange)
    const { endSessionUrl } = await context.lifecycle.logout({ provider, accountId: session.accountId })
    await context.options.signOut?.(session, exchange)
    if (exchange.wantsJson) return jsonAnswer({ endSessionUrl })
    return seeOther(endSessionUrl ?? context.options.afterLogout ?? '/')
  }
}
