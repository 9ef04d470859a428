import { EMAIL_CHANGE_STEP_UP_PURPOSE } from '@portcullis/core/account-email'
import { anonymous, required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import type { RequestHandler, Response } from 'express'
import { anonymousForms } from '../accounts/anonymous-forms.js'
import { field, refusal, requestInfo, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { fieldError, flashNotice } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { html } from '../layout/html.js'
import { CODE_LINK_SCRIPT_PATH, SIGN_IN_PATH, sendPage, sessionViewer } from '../layout/layout.js'
import type { EmailPageOptions } from './email-page-options.js'
import { codePageHeaders } from './recovery-pages.js'

/** The page that asks for the new address (and the password: the `email-change` step-up). */
export const EMAIL_CHANGE_PATH = '/account/email/change'
/** The flows' default pages: the code sent to the new address, the undo link sent to the old one. */
const CONFIRM_PATH = '/email/change/confirm'
const UNDO_PATH = '/email/change/undo'

/**
 * Changing the email address: the new address and the password (which earns the one-use
 * `email-change` step-up, spent at once); nothing changes until the code sent to the new address is
 * entered (`/email/change/confirm`, signed in), so a mistyped address takes nothing over. The old
 * address gets a notice with an undo link (`/email/change/undo`, no session needed: its GET shows a form,
 * the POST undoes).
 */
export function emailChangeRoutes(
  router: SecureRouter,
  security: Pick<Security, 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: EmailPageOptions,
  form: RequestHandler,
): void {
  const { accountEmail, kit, local } = options
  const auth = required(SESSION_MECHANISM)
  const forms = anonymousForms(local)

  router.get(EMAIL_CHANGE_PATH, { auth }, async (request, response) => {
    const flash = kit.take(request, response)
    const email = fieldError(flash, 'email')
    const password = fieldError(flash, 'password')
    await kit.show(
      request,
      response,
      'Change the email address',
      html`${flashNotice(flash)}
        <form method="post" action="${EMAIL_CHANGE_PATH}" class="stack card" aria-label="Change the email address">
          <label>New email address <input name="email" type="email" autocomplete="email" required${email.invalid}></label>
          ${email.message}
          <label>Your password <input name="password" type="password" autocomplete="current-password" required${password.invalid}></label>
          ${password.message}
          <div class="actions"><button type="submit">Send a code to the new address</button> <a href="/account">Cancel</a></div>
          <p class="muted">Nothing changes until you enter the code sent to the new address. Your current address
            is told, with a link that undoes the change for 7 days.</p>
        </form>`,
    )
  })

  router.post(EMAIL_CHANGE_PATH, { auth }, form, async (request, response) => {
    const session = kit.session(request)
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    try {
      const stepUp = await options.service.passwordStepUp({
        session,
        purpose: EMAIL_CHANGE_STEP_UP_PURPOSE,
        password: field(request, 'password'),
        request: requestInfo(request),
      })
      const { flow } = await accountEmail.requestEmailChange({
        session,
        stepUpToken: stepUp.reveal(),
        body: { email: field(request, 'email') },
        request: requestInfo(request),
      })
      options.wake?.()
      codePageHeaders(response)
      response.redirect(303, `${CONFIRM_PATH}?${new URLSearchParams({ flow })}`)
    } catch (error) {
      const code = String((error as { code?: unknown }).code)
      if (code.startsWith('account_email.')) {
        const { message } = refusal(error)
        return kit.done(request, response, EMAIL_CHANGE_PATH, { error: message, field: 'email' })
      }
      kit.failed(request, response, error, EMAIL_CHANGE_PATH)
    }
  })

  router.get(CONFIRM_PATH, { auth }, async (request, response) => {
    const flow = typeof request.query.flow === 'string' ? request.query.flow : ''
    const flash = kit.take(request, response)
    const code = fieldError(flash, 'code')
    codePageHeaders(response)
    await kit.show(
      request,
      response,
      'Confirm the new address',
      html`${flashNotice(flash)}
        <p class="lead">A code went to the new address. Enter it here: the account keeps its current address
          until you do.</p>
        <form method="post" action="${CONFIRM_PATH}" class="stack card" aria-label="Confirm the new address">
          <input type="hidden" name="flow" value="${flow}">
          <label>Code from the mail <input name="code" autocomplete="one-time-code" maxlength="64" required
            data-code-from-link${code.invalid}></label>
          ${code.message}
          <div><button type="submit">Confirm the new address</button></div>
        </form>
        <script src="${CODE_LINK_SCRIPT_PATH}" defer></script>`,
    )
  })

  router.post(CONFIRM_PATH, { auth }, form, async (request, response) => {
    const session = kit.session(request)
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    const flow = field(request, 'flow')
    try {
      const done = await accountEmail.completeEmailChange({
        session,
        body: { flow, code: field(request, 'code') },
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
      if (done.session !== undefined) options.setSession(response, done.session)
      options.wake?.()
      kit.done(request, response, '/account', {
        notice: `Your email address is ${done.address} now. Your other sessions were signed out.`,
      })
    } catch (error) {
      const { message } = refusal(error)
      retryHint(response, error)
      kit.done(request, response, `${CONFIRM_PATH}?${new URLSearchParams({ flow })}`, {
        error: message,
        field: 'code',
      })
    }
  })

  const undoPage = async (
    request: Parameters<RequestHandler>[0],
    response: Response,
    flow: string,
    state: { readonly status?: number; readonly message?: string; readonly done?: string } = {},
  ) => {
    codePageHeaders(response)
    const viewer = await sessionViewer(security, request, context.directory)
    const body =
      state.done !== undefined
        ? html`<p class="notice success" role="status" data-testid="undone">The change was undone: ${state.done} is
            the account's address again, and every session of the account was signed out.</p>
            <p><a class="button" href="${SIGN_IN_PATH}">Sign in</a></p>`
        : html`${state.message === undefined ? '' : html`<p class="notice error" role="alert">${state.message}</p>`}
            <p class="lead">Someone changed the email address of your account to another one. If it was not you,
              undo it: this address becomes the account's address again and every session is signed out.</p>
            <form method="post" action="${UNDO_PATH}" class="stack card" aria-label="Undo the change">
              <input type="hidden" name="csrf_token" value="${forms.token(request, response)}">
              <input type="hidden" name="flow" value="${flow}">
              <label>Code from the mail <input name="code" autocomplete="one-time-code" maxlength="64" required
                data-code-from-link></label>
              <div><button type="submit" class="danger">Undo the change</button></div>
            </form>
            <script src="${CODE_LINK_SCRIPT_PATH}" defer></script>`
    sendPage(response, { title: 'Undo the email change', area: 'sign-in', viewer, body }, state.status)
  }

  router.get(UNDO_PATH, { auth: anonymous() }, (request, response) =>
    undoPage(request, response, typeof request.query.flow === 'string' ? request.query.flow : ''),
  )

  router.post(UNDO_PATH, { auth: anonymous() }, form, async (request, response) => {
    const flow = field(request, 'flow')
    if (!forms.passes(request))
      return undoPage(request, response, flow, { status: 403, message: 'The form could not be verified.' })
    try {
      const { address } = await accountEmail.undoEmailChange(
        { flow, code: field(request, 'code') },
        requestInfo(request),
      )
      options.wake?.()
      await undoPage(request, response, flow, { done: address })
    } catch (error) {
      const { status, message } = refusal(error)
      retryHint(response, error)
      await undoPage(request, response, flow, { status, message })
    }
  })
}
