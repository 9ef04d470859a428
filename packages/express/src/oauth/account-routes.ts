import { OAUTH_STEP_UP_PURPOSES } from '@portcullis/core/oidc'
import type { Request, Response } from 'express'
import { HttpProblem } from '../problem/problem.js'
import { type OAuthRouteContext, requireSession } from './context.js'
import { providerOf, seeOther, stepUpTokenOf, wantsJson } from './http.js'

/**
 * `POST links/{providerAccountId}/unlink`: needs a step-up credential `oauth-unlink`. A browser is sent
 * to `afterUnlink` (303); a client that asks for JSON gets the outcome.
 */
export function unlink(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await requireSession(context, request)
    const purpose = OAUTH_STEP_UP_PURPOSES.unlink
    const outcome = await context.lifecycle.unlink({
      provider,
      session,
      providerAccountId: String(request.params.providerAccountId),
      stepUpToken: stepUpTokenOf(request, response, context.stepUp, purpose),
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
    context.emit({ type: 'oauth.unlinked', accountId, provider })
    const { securityEpoch } = outcome
    await context.options.renewSignIn?.(
      { accountId, securityEpoch, reason: 'identity_unlinked' },
      request,
      response,
    )
    if (!wantsJson(request)) return seeOther(response, context.options.afterUnlink ?? '/')
    response.json({ status: 'unlinked', provider, providerAccountId: outcome.providerAccountId })
  }
}

/** `POST revoke`: revokes the retained provider tokens; needs `oauth-provider-token-management`. */
export function revoke(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await requireSession(context, request)
    const purpose = OAUTH_STEP_UP_PURPOSES.tokenManagement
    const outcome = await context.lifecycle.revokeProviderTokens({
      provider,
      session,
      stepUpToken: stepUpTokenOf(request, response, context.stepUp, purpose),
    })
    const { accountId, sessionHandle } = session
    context.emit({ type: 'step_up.consumed', accountId, purpose, sessionHandle })
    const pending = outcome.status === 'revocation-pending'
    if (outcome.status !== 'nothing-to-revoke') {
      context.emit({ type: 'oauth.tokens_revoked', accountId, provider, pending })
    }
    // 202: the local side is done, the provider is retried by `drainRevocationRetries`.
    response.status(pending ? 202 : 200).json({ status: outcome.status })
  }
}

/**
 * `POST logout`: ends the local session (`signOut`), then sends the browser to the provider's
 * end-session endpoint (RP-initiated logout) or to `afterLogout`; JSON clients get `{ endSessionUrl }`.
 */
export function logout(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await requireSession(context, request)
    const { endSessionUrl } = await context.lifecycle.logout({ provider, accountId: session.accountId })
    await context.options.signOut?.(session, request, response)
    if (wantsJson(request)) {
      response.json({ endSessionUrl })
      return
    }
    seeOther(response, endSessionUrl ?? context.options.afterLogout ?? '/')
  }
}
