import { ADDRESS_STEP_UP_PURPOSE } from '@portcullis/core/account-email'
import { anonymous, required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import type { Request, RequestHandler, Response } from 'express'
import { anonymousForms } from '../accounts/anonymous-forms.js'
import { field, refusal, requestInfo, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { fieldError, flashNotice } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { html } from '../layout/html.js'
import { CODE_LINK_SCRIPT_PATH, sendPage, sessionViewer } from '../layout/layout.js'
import type { EmailPageOptions } from './email-page-options.js'
import { codePageHeaders } from './recovery-pages.js'

/** The page that adds an address (with the password: the `email-change` step-up); the account page links it. */
export const ADD_ADDRESS_PATH = '/account/email/addresses'
/** A new verification code for an unverified address (the banner's button and the account page's). */
export const RESEND_ADDRESS_PATH = '/account/email/addresses/resend'
/** Making an address primary or removing it: the page asks for the password, then acts. */
export const ADDRESS_ACTION_PATH = '/account/email/address'
/** The verification mail's link (`?flow=...#code=...`): the flows' default `verifyEmail` page. */
export const VERIFY_EMAIL_PATH = '/verify-email'

type Action = 'primary' | 'remove'
const ACTIONS: Readonly<
  Record<Action, { readonly title: string; readonly button: string; readonly lead: string }>
> = {
  primary: {
    title: 'Make the address primary',
    button: 'Make it the primary address',
    lead: 'Password resets and security notices go to the primary address. Your other sessions are signed out.',
  },
  remove: {
    title: 'Remove the address',
    button: 'Remove the address',
    lead: 'The address no longer receives anything for this account; codes mailed to it stop working. Removing a verified address signs out your other sessions.',
  },
}

const actionOf = (value: unknown): Action | undefined =>
  value === 'primary' || value === 'remove' ? value : undefined

/**
 * The signed-in account's addresses (the account page lists them): add one (the password earns the
 * `email-change` step-up, spent at once; a code goes to the new address), send a new code to an
 * unverified one, make a verified one primary or remove one (each on a page that asks for the password).
 * The verification mail's link opens `/verify-email`, whose GET only shows the form (a link scanner
 * spends nothing) and whose POST verifies.
 */
export function addressRoutes(
  router: SecureRouter,
  security: Pick<Security, 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: EmailPageOptions,
  form: RequestHandler,
): void {
  const { accountEmail, kit, local } = options
  const auth = required(SESSION_MECHANISM)
  const forms = anonymousForms(local)
  const stepUpToken = async (request: Parameters<typeof kit.session>[0]) => {
    const session = kit.session(request)
    if (session === undefined) throw new Error('a signed-in page without a session')
    const stepUp = await options.service.passwordStepUp({
      session,
      purpose: ADDRESS_STEP_UP_PURPOSE,
      password: field(request, 'password'),
      request: requestInfo(request),
    })
    return { session, stepUpToken: stepUp.reveal() }
  }

  router.get(ADD_ADDRESS_PATH, { auth }, async (request, response) => {
    const flash = kit.take(request, response)
    const email = fieldError(flash, 'email')
    const password = fieldError(flash, 'password')
    await kit.show(
      request,
      response,
      'Add an email address',
      html`${flashNotice(flash)}
        <form method="post" action="${ADD_ADDRESS_PATH}" class="stack card" aria-label="Add an address">
          <label>Another email address <input name="email" type="email" autocomplete="email" required${email.invalid}></label>
          ${email.message}
          <label>Your password <input name="password" type="password" autocomplete="current-password" required${password.invalid}></label>
          ${password.message}
          <div class="actions"><button type="submit">Add the address</button> <a href="/account">Cancel</a></div>
          <p class="muted">A code goes to the new address; it can receive password resets once verified.</p>
        </form>`,
    )
  })

  router.post(ADD_ADDRESS_PATH, { auth }, form, async (request, response) => {
    const email = field(request, 'email')
    try {
      const added = await accountEmail.addAddress({
        ...(await stepUpToken(request)),
        body: { email },
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
      options.wake?.()
      kit.done(request, response, '/account', {
        notice: `A code went to ${added.address}: open the mail's link to verify the address.`,
      })
    } catch (error) {
      const code = String((error as { code?: unknown }).code)
      if (code.startsWith('account_email.') || code.startsWith('email.')) {
        retryHint(response, error)
        return kit.done(request, response, ADD_ADDRESS_PATH, {
          error: refusal(error).message,
          field: 'email',
        })
      }
      kit.failed(request, response, error, ADD_ADDRESS_PATH)
    }
  })

  router.post(RESEND_ADDRESS_PATH, { auth }, form, async (request, response) => {
    const session = kit.session(request)
    try {
      if (session === undefined) throw new Error('a signed-in page without a session')
      const address = field(request, 'address')
      await accountEmail.resendAddressVerification({
        session,
        body: { email: address },
        request: requestInfo(request),
      })
      options.wake?.()
      kit.done(request, response, '/account', { notice: `A new code went to ${address}.` })
    } catch (error) {
      retryHint(response, error)
      kit.done(request, response, '/account', { error: refusal(error).message })
    }
  })

  router.get(ADDRESS_ACTION_PATH, { auth }, async (request, response) => {
    const action = actionOf(request.query.action)
    const address = typeof request.query.address === 'string' ? request.query.address.slice(0, 320) : ''
    if (action === undefined || address === '') return response.redirect(303, '/account')
    const words = ACTIONS[action]
    const flash = kit.take(request, response)
    const password = fieldError(flash, 'password')
    await kit.show(
      request,
      response,
      words.title,
      html`${flashNotice(flash)}
        <p class="lead"><code data-testid="action-address">${address}</code>: ${words.lead}</p>
        <form method="post" action="${ADDRESS_ACTION_PATH}" class="stack card" aria-label="${words.title}">
          <input type="hidden" name="action" value="${action}">
          <input type="hidden" name="address" value="${address}">
          <label>Your password <input name="password" type="password" autocomplete="current-password" required${password.invalid}></label>
          ${password.message}
          <div class="actions"><button type="submit"${action === 'remove' ? html` class="danger"` : ''}>${words.button}</button> <a href="/account">Cancel</a></div>
        </form>`,
    )
  })

  router.post(ADDRESS_ACTION_PATH, { auth }, form, async (request, response) => {
    const action = actionOf(field(request, 'action'))
    const address = field(request, 'address')
    const back = `${ADDRESS_ACTION_PATH}?${new URLSearchParams({ action: action ?? 'remove', address })}`
    if (action === undefined) return response.redirect(303, '/account')
    try {
      const change = {
        ...(await stepUpToken(request)),
        body: { email: address },
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      }
      const done =
        action === 'primary'
          ? await accountEmail.makeAddressPrimary(change)
          : await accountEmail.removeAddress(change)
      if (done.session !== undefined) options.setSession(response, done.session)
      options.wake?.()
      const signedOut = done.session === undefined ? '' : ' Your other sessions were signed out.'
      kit.done(request, response, '/account', {
        notice:
          action === 'primary'
            ? `${done.address} is your primary address now.${signedOut}`
            : `${done.address} was removed.${signedOut}`,
      })
    } catch (error) {
      const code = String((error as { code?: unknown }).code)
      if (code.startsWith('account_email.')) {
        retryHint(response, error)
        return kit.done(request, response, '/account', { error: refusal(error).message })
      }
      kit.failed(request, response, error, back)
    }
  })

  /** The impersonation of the request's session, on a public page (which reads no credential itself). */
  const sessionPolicy = security.evaluator.compile(auth)
  const impersonatorOf = async (request: Request) => {
    try {
      const outcome = await security.evaluation(request).evaluate(sessionPolicy)
      return outcome.kind === 'granted' ? outcome.context.principal?.impersonator : undefined
    } catch {
      return undefined
    }
  }

  const verifyPage = async (
    request: Request,
    response: Response,
    flow: string,
    state: { readonly status?: number; readonly message?: string; readonly done?: boolean } = {},
  ) => {
    codePageHeaders(response)
    const viewer = await sessionViewer(security, request, context.directory)
    const body = state.done
      ? html`<p class="notice success" role="status" data-testid="verified">The address is verified.</p>
          <p><a class="button" href="${viewer === undefined ? '/sign-in' : '/account'}">${viewer === undefined ? 'Sign in' : 'Back to your account'}</a></p>`
      : html`${state.message === undefined ? '' : html`<p class="field-error" id="code-error" role="alert" data-testid="field-error">${state.message}</p>`}
          <p class="lead">Enter the code from the mail to verify the address.</p>
          <form method="post" action="${VERIFY_EMAIL_PATH}" class="stack card" aria-label="Verify the address">
            <input type="hidden" name="csrf_token" value="${forms.token(request, response)}">
            <input type="hidden" name="flow" value="${flow}">
            <label>Code from the mail <input name="code" autocomplete="one-time-code" maxlength="64" required
              data-code-from-link${state.message === undefined ? '' : html` aria-invalid="true" aria-describedby="code-error"`}></label>
            <div><button type="submit">Verify the address</button></div>
          </form>
          <script src="${CODE_LINK_SCRIPT_PATH}" defer></script>`
    sendPage(response, { title: 'Verify your address', area: 'none', viewer, body }, state.status)
  }

  router.get(VERIFY_EMAIL_PATH, { auth: anonymous() }, (request, response) => {
    const flow = typeof request.query.flow === 'string' ? request.query.flow : ''
    if (flow === '' || flow.length > 2048) return response.redirect(303, '/account')
    return verifyPage(request, response, flow)
  })

  router.post(VERIFY_EMAIL_PATH, { auth: anonymous() }, form, async (request, response) => {
    const flow = field(request, 'flow')
    if (!forms.passes(request)) {
      return verifyPage(request, response, flow, { status: 403, message: 'The form could not be verified.' })
    }
    try {
      // The page is public; a verification made from an impersonation still names the administrator.
      const info = { ...requestInfo(request), impersonator: await impersonatorOf(request) }
      await accountEmail.verifyEmail({ flow, code: field(request, 'code') }, info)
      await verifyPage(request, response, flow, { done: true })
    } catch (error) {
      const { status, message } = refusal(error)
      retryHint(response, error)
      await verifyPage(request, response, flow, { status, message })
    }
  })
}
