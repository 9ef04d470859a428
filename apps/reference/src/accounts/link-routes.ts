import type { AccountService, SignInMethod } from '@portcullis/core/accounts'
import { required } from '@portcullis/core/policy'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { RequestHandler, Response } from 'express'
import { html } from '../layout/html.js'
import { SIGN_IN_PATH } from '../layout/layout.js'
import { providerName } from './confirm-pages.js'
import { field, requestInfo } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import { DEMO_PROVIDER } from './oauth.js'
import { type AccountKit, CONFIRM_FIRST, confirmPath, flashNotice } from './page-kit.js'

/** The step-up purpose the OAuth link route consumes. */
const LINK_PURPOSE = 'oauth-link'
/** The step-up purpose the OAuth unlink route consumes. */
const UNLINK_PURPOSE = 'oauth-unlink'

/**
 * Linking and unlinking an identity provider: the confirmation (the password, or the cookie a passkey
 * step-up left) earns a one-use credential of the purpose in its `SameSite=Strict` cookie, then a page
 * says so and continues to the OAuth route that spends it. The account page says what came of it.
 */
export function linkRoutes(
  router: SecureRouter,
  security: Pick<Security, 'stepUp'>,
  options: {
    readonly service: AccountService
    readonly kit: AccountKit
    readonly methodsOf: (accountId: string) => Promise<readonly SignInMethod[]>
  },
  form: RequestHandler,
): void {
  const { service, kit } = options
  const auth = required(SESSION_MECHANISM)
  const present = (request: SecuredRequest, purpose: string) =>
    security.stepUp.cookies?.read(request.headers.cookie, purpose).kind === 'present'

  /**
   * The credential of `purpose` in its cookie: earned by the password now (counted against the sign-in
   * limits before any hashing), or already there from a passkey step-up. False when refused (the
   * confirmation page then says why).
   */
  const confirm = async (request: SecuredRequest, response: Response, purpose: string, back: string) => {
    const session = kit.session(request)
    if (session === undefined) {
      response.redirect(303, SIGN_IN_PATH)
      return false
    }
    if (field(request, 'password') === '') {
      if (present(request, purpose)) return true
      kit.done(request, response, back, { error: CONFIRM_FIRST, field: 'password' })
      return false
    }
    try {
      const credential = await service.passwordStepUp({
        session,
        purpose,
        password: field(request, 'password'),
        request: requestInfo(request),
      })
      const cookies = security.stepUp.cookies
      if (cookies !== undefined)
        response.append('Set-Cookie', cookies.serialize(purpose, credential.reveal(), credential.expiresAt))
      return true
    } catch (error) {
      kit.failed(request, response, error, back)
      return false
    }
  }

  /** The page between the confirmation and the provider: what was confirmed, and the button to go on. */
  const continuePage = async (
    request: SecuredRequest,
    response: Response,
    input: { title: string; purpose: string; action: string; button: string; back: string },
  ) => {
    const flash = kit.take(request, response)
    if (!present(request, input.purpose)) {
      await kit.show(
        request,
        response,
        input.title,
        html`<p class="notice warning">There is no confirmation waiting (it was used, or five minutes passed).</p>
          <p><a class="button" href="${input.back}">Confirm again</a> <a href="/account">Back to your account</a></p>`,
      )
      return
    }
    kit.flash.set(response, kit.accountId(request), {
      pending: input.purpose === LINK_PURPOSE ? 'link' : 'unlink',
    })
    await kit.show(
      request,
      response,
      input.title,
      html`${flashNotice(flash)}
        <p class="lead">Continue within five minutes, in this browser. The confirmation works once, for this only.</p>
        <form method="post" action="${input.action}" class="card">
          <input type="hidden" name="return_to" value="/account">
          <div class="actions"><button type="submit">${input.button}</button> <a href="/account">Cancel</a></div>
        </form>`,
    )
  }

  router.post(`/account/link/${DEMO_PROVIDER}`, { auth }, form, async (request, response) => {
    if (!(await confirm(request, response, LINK_PURPOSE, confirmPath('oauth-link')))) return
    kit.done(request, response, `/account/link/${DEMO_PROVIDER}`, { notice: 'Confirmed: it is you.' })
  })

  router.get(`/account/link/${DEMO_PROVIDER}`, { auth }, (request, response) =>
    continuePage(request, response, {
      title: 'Link the demo identity provider',
      purpose: LINK_PURPOSE,
      action: `/auth/oauth/${DEMO_PROVIDER}/link`,
      button: 'Continue to the demo IdP',
      back: confirmPath('oauth-link'),
    }),
  )

  /** The linked identity of the path, or undefined (another account's identity is no different from none). */
  const linkOf = async (request: SecuredRequest) => {
    const provider = String(request.params.provider)
    const providerAccountId = String(request.params.providerAccountId)
    const methods = await options.methodsOf(kit.accountId(request))
    const linked = methods.some(
      (method) =>
        method.kind === 'identity' &&
        method.provider === provider &&
        method.providerAccountId === providerAccountId,
    )
    return linked ? { provider, providerAccountId } : undefined
  }

  router.post('/account/unlink/:provider/:providerAccountId', { auth }, form, async (request, response) => {
    const link = await linkOf(request)
    if (link === undefined)
      return kit.done(request, response, '/account', { error: 'No such linked identity.' })
    const back = confirmPath('oauth-unlink', { provider: link.provider, id: link.providerAccountId })
    if (!(await confirm(request, response, UNLINK_PURPOSE, back))) return
    kit.done(
      request,
      response,
      `/account/unlink/${encodeURIComponent(link.provider)}/${encodeURIComponent(link.providerAccountId)}`,
      { notice: 'Confirmed: it is you.' },
    )
  })

  router.get('/account/unlink/:provider/:providerAccountId', { auth }, async (request, response) => {
    const link = await linkOf(request)
    if (link === undefined)
      return kit.done(request, response, '/account', { error: 'No such linked identity.' })
    await continuePage(request, response, {
      title: `Unlink ${providerName(link.provider)}`,
      purpose: UNLINK_PURPOSE,
      action: `/auth/oauth/${encodeURIComponent(link.provider)}/links/${encodeURIComponent(link.providerAccountId)}/unlink`,
      button: 'Unlink',
      back: confirmPath('oauth-unlink', { provider: link.provider, id: link.providerAccountId }),
    })
  })
}
