import type { AccountEmail } from '@portcullis/core/account-email'
import type { AccountStore } from '@portcullis/core/accounts'
import type { LocalAccounts, SessionSignIn } from '@portcullis/core/local-accounts'
import { anonymous, required } from '@portcullis/core/policy'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { Request, Response } from 'express'
import { codePageHeaders } from '../account-email/recovery-pages.js'
import { anonymousForms } from '../accounts/anonymous-forms.js'
import { field, formBody, refusal, requestInfo, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import {
  CODE_LINK_SCRIPT_PATH,
  SIGN_IN_PATH,
  sendPage,
  sessionViewer,
  type Viewer,
} from '../layout/layout.js'
import { MAILBOX_PATH } from '../mail/mailbox-page.js'
import {
  acceptForm,
  INVITATION_SIGN_UP_PATH,
  INVITATION_VERIFY_PATH,
  type InvitationHidden,
  invitationSignUpForm,
  invitationVerifyForm,
} from './invitation-pages.js'
import { ACCEPT_INVITATION_PATH } from './organization-wiring.js'
import { organizationFlash } from './organization-words.js'

const FLOW = /^[A-Za-z0-9_-]{16,128}$/

/**
 * The invitation mail's link and what follows it. `GET /organizations/invitations/accept?flow=...#code=...`
 * only shows a form (a link scanner spends nothing; the code comes from the fragment, which never
 * reaches the server); its POST accepts for the signed-in account, which must hold the invited address
 * verified. Someone without an account signs up on the same page (address and password), gets a
 * verification code at that address, and types it here with the password: the address is verified, the
 * person is signed in, and the accept form follows with the invitation's code still filled in.
 */
export function invitationRoutes(
  security: Pick<Security, 'router' | 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: {
    readonly local: LocalAccounts
    readonly accountEmail: AccountEmail
    readonly accounts: Pick<AccountStore, 'findPassword'>
    readonly wake?: () => void
  },
): SecureRouter {
  const { local, accountEmail } = options
  const { invitations } = context.organizations
  const router = security.router()
  const forms = anonymousForms(local)
  const form = formBody()
  const kit = accountKit(context)
  const mailbox =
    context.mailbox === undefined
      ? html``
      : html`<p class="muted" data-testid="mailbox-hint">In development mail arrives in the
          <a href="${MAILBOX_PATH}">development mailbox</a>.</p>`

  const show = (
    response: Response,
    viewer: Viewer | undefined,
    body: SafeHtml,
    status = 200,
    title = 'Join an organization',
  ) => {
    codePageHeaders(response)
    sendPage(response, { title, area: 'none', viewer, body }, status)
  }
  const hiddenOf = (request: Request): InvitationHidden => ({
    flow: field(request, 'flow'),
    code: field(request, 'code'),
  })
  const returnTo = (flow: string) => `${ACCEPT_INVITATION_PATH}?flow=${encodeURIComponent(flow)}`

  /** The anonymous visitor's page: sign in (then open the link again) or sign up with the invited address. */
  const signUpPage = (request: Request, response: Response, hidden: InvitationHidden, message?: string) =>
    show(
      response,
      undefined,
      invitationSignUpForm({
        hidden,
        csrfToken: forms.token(request, response),
        signInHref: `${SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo(hidden.flow))}`,
        ...(message === undefined ? {} : { message }),
        email: field(request, 'email'),
      }),
      message === undefined ? 200 : 400,
    )

  router.get(ACCEPT_INVITATION_PATH, { auth: anonymous() }, async (request, response) => {
    const flow = typeof request.query.flow === 'string' ? request.query.flow : ''
    const viewer = await sessionViewer(security, request, context.directory)
    if (!FLOW.test(flow)) {
      return show(
        response,
        viewer,
        html`<p class="notice error" role="alert">This invitation link is incomplete: open it from the mail again.</p>`,
        400,
      )
    }
    if (viewer === undefined) return signUpPage(request, response, { flow, code: '' })
    return show(
      response,
      viewer,
      html`${acceptForm({ hidden: { flow, code: '' }, viewer, csrfToken: forms.token(request, response) })}
        <script src="${CODE_LINK_SCRIPT_PATH}" defer></script>`,
    )
  })

  router.post(
    ACCEPT_INVITATION_PATH,
    { auth: required(SESSION_MECHANISM) },
    form,
    async (request: SecuredRequest, response) => {
      const hidden = hiddenOf(request)
      try {
        const membership = await invitations.accept({
          invitationId: hidden.flow,
          code: hidden.code,
          accountId: kit.accountId(request),
        })
        // The next page is the organization's: this instance reads the new membership at once.
        context.organizations.resolver.evict(kit.accountId(request))
        kit.flash.set(response, kit.accountId(request), {
          notice: `Welcome: you are now ${membership.role} of this organization.`,
        })
        response.redirect(303, `/organizations/${encodeURIComponent(membership.organizationId)}`)
      } catch (error) {
        const flash = organizationFlash(error)
        retryHint(response, error)
        const viewer = await sessionViewer(security, request, context.directory)
        show(
          response,
          viewer,
          html`<p class="notice error" role="alert" data-testid="accept-refused">${flash.error}</p>
            ${acceptForm({ hidden, viewer, csrfToken: forms.token(request, response) })}`,
          403,
        )
      }
    },
  )

  router.post(INVITATION_SIGN_UP_PATH, { auth: anonymous() }, form, async (request, response) => {
    const hidden = hiddenOf(request)
    if (!forms.passes(request))
      return signUpPage(request, response, hidden, 'The form could not be verified.')
    const email = field(request, 'email')
    try {
      const { flow } = await accountEmail.signUp(
        { email, password: field(request, 'password') },
        requestInfo(request),
      )
      options.wake?.()
      return show(
        response,
        undefined,
        html`${invitationVerifyForm({ hidden, verification: flow, email, csrfToken: forms.token(request, response) })}${mailbox}`,
      )
    } catch (error) {
      const { message } = refusal(error)
      retryHint(response, error)
      return signUpPage(request, response, hidden, message)
    }
  })

  router.post(INVITATION_VERIFY_PATH, { auth: anonymous() }, form, async (request, response) => {
    const hidden = hiddenOf(request)
    const verification = field(request, 'verification')
    const email = field(request, 'email')
    const again = (message: string, status: number) =>
      show(
        response,
        undefined,
        html`<p class="field-error" role="alert" data-testid="field-error">${message}</p>
          ${invitationVerifyForm({ hidden, verification, email, csrfToken: forms.token(request, response) })}${mailbox}`,
        status,
      )
    if (!forms.passes(request)) return again('The form could not be verified.', 403)
    let accountId: string
    try {
      accountId = (
        await accountEmail.verifyEmail(
          { flow: verification, code: field(request, 'mail_code') },
          requestInfo(request),
        )
      ).accountId
    } catch (error) {
      const { status, message } = refusal(error)
      retryHint(response, error)
      return again(message, status)
    }
    // The address is verified; the password the person chose signs them in (their generated username).
    const record = await options.accounts.findPassword({ accountId })
    let signIn: SessionSignIn
    try {
      if (record === null) throw new Error('no password')
      signIn = (await local.login(
        { username: record.username, password: field(request, 'password') },
        {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(request.headers.cookie),
          request: requestInfo(request),
        },
      )) as SessionSignIn
    } catch {
      return show(
        response,
        undefined,
        html`<p class="notice success" role="status" data-testid="verified">The address is verified.</p>
          <p>Sign in, then open the invitation link again.</p>
          <p><a class="button" href="${SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo(hidden.flow))}">Sign in</a></p>`,
      )
    }
    response.append('Set-Cookie', signIn.setCookie)
    context.directory.names.rememberEmail(accountId, email)
    const viewer = { accountId, username: email, displayName: email }
    return show(
      response,
      viewer,
      html`<p class="notice success" role="status" data-testid="verified">Your address is verified and you are signed in.</p>
        ${acceptForm({ hidden, viewer, csrfToken: signIn.csrfToken })}`,
    )
  })

  return router
}
