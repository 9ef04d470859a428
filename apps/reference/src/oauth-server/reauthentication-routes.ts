import type { AccountService } from '@portcullis/core/accounts'
import { optional, required } from '@portcullis/core/policy'
import { localSessionOf, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { Response } from 'express'
import { field, formBody, refusal, requestInfo, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { SIGN_IN_PATH, sendPage, viewerFor } from '../layout/layout.js'
import { OAUTH_REAUTHENTICATE_PATH } from './names.js'
import { CONNECT_RESUME_PATH, forgetInteraction, interactionPath, rememberedInteraction } from './resume.js'

/**
 * `/oauth-reauthenticate`: where an authorization with `prompt=login` or an exceeded `max_age` sends the
 * user. The password is checked again (under the sign-in rate limits) and a one-use step-up credential
 * of purpose `oauth-authorize`, bound to this session, goes into its step-up cookie; the interaction
 * consumes it and its time becomes the token's `auth_time`. Also `/connect/resume`, where an upstream
 * sign-in started during an authorization comes back to.
 */
export function reauthenticationRoutes(
  security: Pick<Security, 'router' | 'stepUp'>,
  context: ReferenceContext,
  service: Pick<AccountService, 'passwordStepUp'>,
  /** The step-up purpose the interaction consumes (`OAUTH_AUTHORIZE_PURPOSE`). */
  purpose: string,
): SecureRouter {
  const router = security.router()
  const auth = required(SESSION_MECHANISM)

  const show = async (
    request: SecuredRequest,
    response: Response,
    returnTo: string,
    notice?: SafeHtml,
    status = 200,
  ) => {
    sendPage(
      response,
      {
        title: 'Confirm it is you',
        area: 'none',
        viewer: await viewerFor(request.security, context.directory),
        body: html`${notice ?? ''}<p class="lead">An app asks to connect with a fresh sign-in. Enter your password
          to continue to its consent page.</p>
          <form method="post" action="${OAUTH_REAUTHENTICATE_PATH}" class="stack" aria-label="Confirm your password">
            <input type="hidden" name="return_to" value="${returnTo}">
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <button type="submit">Confirm and continue</button></form>`,
      },
      status,
    )
  }

  router.get(OAUTH_REAUTHENTICATE_PATH, { auth: optional(auth) }, async (request, response) => {
    const returnTo = interactionPath(request.query.return_to)
    if (returnTo === undefined) return response.redirect(303, '/')
    if (localSessionOf(request.security) === undefined) {
      return response.redirect(303, `${SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo)}`)
    }
    await show(request, response, returnTo)
  })

  router.post(OAUTH_REAUTHENTICATE_PATH, { auth }, formBody(), async (request, response) => {
    const returnTo = interactionPath(field(request, 'return_to'))
    const session = localSessionOf(request.security)
    if (returnTo === undefined || session === undefined) return response.redirect(303, '/')
    const cookies = security.stepUp.cookies
    try {
      const credential = await service.passwordStepUp({
        session,
        purpose,
        password: field(request, 'password'),
        request: requestInfo(request),
      })
      if (cookies !== undefined) {
        response.append('Set-Cookie', cookies.serialize(purpose, credential.reveal(), credential.expiresAt))
      }
      response.redirect(303, returnTo)
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (code === 'account.password_missing') {
        return show(
          request,
          response,
          returnTo,
          html`<p class="notice error" role="alert">This account signs in without a password: sign out, then sign in again with your passkey or the demo IdP, and connect the app once more.</p>`,
          409,
        )
      }
      const { status, message } = refusal(error)
      retryHint(response, error)
      await show(
        request,
        response,
        returnTo,
        html`<p class="notice error" role="alert">${status === 401 ? 'The password is wrong.' : message}</p>`,
        status,
      )
    }
  })
  // Back from an upstream sign-in started on the sign-in page of an authorization (see resume.ts).
  router.get(CONNECT_RESUME_PATH, { auth: optional(auth) }, (request, response) => {
    const path = rememberedInteraction(request.headers.cookie)
    response.append('Set-Cookie', forgetInteraction(context.publicOrigin.startsWith('https:')))
    response.redirect(303, path ?? '/')
  })
  return router
}
