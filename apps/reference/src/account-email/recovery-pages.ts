import type { AccountEmail, ResetPendingPasskey } from '@portcullis/core/account-email'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { anonymous } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import { browserBindingCookie, browserBindingFrom } from '@portcullis/http'
import type { Request, RequestHandler, Response } from 'express'
import { anonymousForms } from '../accounts/anonymous-forms.js'
import { field, refusal, requestInfo, retryHint } from '../accounts/forms.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import {
  CODE_LINK_SCRIPT_PATH,
  PASSKEYS_SCRIPT_PATH,
  SIGN_IN_PATH,
  sendPage,
  sessionViewer,
} from '../layout/layout.js'
import { MAILBOX_PATH } from '../mail/mailbox-page.js'

/** Where "Forgot password?" leads: the address to send a reset code to. */
export const FORGOT_PASSWORD_PATH = '/forgot-password'
/** The code entry page, also the mail's link (`?flow=...#code=...`): the flows' default `resetPassword`. */
export const RESET_PASSWORD_PATH = '/reset-password'
const SECOND_FACTOR_PATH = '/reset-password/second-factor'
const DONE_PATH = '/reset-password/done'

/** Pages that show or take a code: never cached, and no code in a `Referer` (OWASP). */
export function codePageHeaders(response: Response): void {
  response.setHeader('Cache-Control', 'no-store')
  response.setHeader('Referrer-Policy', 'no-referrer')
}

interface PageState {
  readonly status?: number
  readonly message?: string
  /** The field the message is about (shown beside it). */
  readonly field?: 'email' | 'code' | 'password'
}

const alert = (state: PageState, name: PageState['field']) =>
  state.message !== undefined && state.field === name
    ? html`<p class="field-error" id="${name}-error" role="alert" data-testid="field-error">${state.message}</p>`
    : html``
const invalid = (state: PageState, name: PageState['field']) =>
  state.message !== undefined && state.field === name
    ? html` aria-invalid="true" aria-describedby="${name}-error"`
    : html``
const notice = (state: PageState) =>
  state.message !== undefined && state.field === undefined
    ? html`<p class="notice error" role="alert" data-testid="flash">${state.message}</p>`
    : html``

/**
 * Password reset by email, for people who cannot sign in: "Forgot password?" on the sign-in page asks
 * for the address (`/forgot-password`); the answer is the same for every address, and the code entry
 * page follows (`/reset-password?flow=...`), which the mail's link opens too. Its GET only shows the
 * form, so a link scanner spends nothing; the form posts the code with the new password. An account
 * with two-step sign-in then enters its authenticator code, and one with a passkey confirms with it,
 * before the password is written. Every
 * session of the account ends; the person signs in again with the new password.
 */
export function recoveryRoutes(
  security: Pick<Security, 'router' | 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: {
    readonly accountEmail: AccountEmail
    readonly local: LocalAccounts
    /** Sends the mail a form just queued now rather than at the drain's next poll. */
    readonly wake?: () => void
  },
  form: RequestHandler,
): SecureRouter {
  const { accountEmail, local } = options
  const wake = () => options.wake?.()
  const router = security.router()
  const forms = anonymousForms(local)
  const mailbox =
    context.mailbox === undefined
      ? html``
      : html`<p class="muted" data-testid="mailbox-hint">In development mail arrives in the
          <a href="${MAILBOX_PATH}">development mailbox</a>.</p>`

  const show = async (request: Request, response: Response, title: string, body: SafeHtml, status = 200) => {
    codePageHeaders(response)
    const viewer = await sessionViewer(security, request, context.directory)
    sendPage(response, { title, area: 'sign-in', viewer, body }, status)
  }
  const refused = async (request: Request, response: Response) => {
    await show(
      request,
      response,
      'The form could not be verified',
      html`<p>The form was sent from another site, or from a page that is too old. Nothing was sent or
        changed. Open the page again and send the form from there.</p>
        <p><a class="button" href="${FORGOT_PASSWORD_PATH}">Start again</a></p>`,
      403,
    )
  }

  const requestPage = (request: Request, response: Response, state: PageState = {}) =>
    show(
      request,
      response,
      'Forgot your password?',
      html`${notice(state)}
        <p class="lead">Enter the verified email address of your account. If it has one, a code to reset the
          password goes there; it works for an hour.</p>
        <form method="post" action="${FORGOT_PASSWORD_PATH}" class="stack card" aria-label="Send a reset code">
          <input type="hidden" name="csrf_token" value="${forms.token(request, response)}">
          <label>Email address <input name="email" type="email" autocomplete="email" required
            value="${field(request, 'email')}"${invalid(state, 'email')}></label>
          ${alert(state, 'email')}
          <div class="actions"><button type="submit">Send a code</button> <a href="${SIGN_IN_PATH}">Back to sign in</a></div>
        </form>
        ${mailbox}`,
      state.status,
    )

  const codePage = (request: Request, response: Response, flow: string, state: PageState = {}) =>
    show(
      request,
      response,
      'Reset your password',
      html`${notice(state)}
        ${
          request.query.sent === undefined
            ? html``
            : html`<p class="notice success" role="status" data-testid="sent">If an account has that address, a code
                is on its way there. It works for an hour, and only once.</p>`
        }
        <form method="post" action="${RESET_PASSWORD_PATH}" class="stack card" aria-label="Reset the password">
          <input type="hidden" name="csrf_token" value="${forms.token(request, response)}">
          <input type="hidden" name="flow" value="${flow}">
          <label>Code from the mail <input name="code" autocomplete="one-time-code" inputmode="text"
            autocapitalize="off" spellcheck="false" maxlength="64" required data-code-from-link${invalid(state, 'code')}></label>
          ${alert(state, 'code')}
          <label>New password <input name="password" type="password" autocomplete="new-password" minlength="8"
            required${invalid(state, 'password')}></label>
          ${alert(state, 'password')}
          <div><button type="submit">Reset the password</button></div>
          <p class="muted">Every session of the account is signed out, on every device; you then sign in with
            the new password.</p>
        </form>
        <p class="muted">No mail? Check the address, or <a href="${FORGOT_PASSWORD_PATH}">ask for a new code</a>.</p>
        ${mailbox}
        <script src="${CODE_LINK_SCRIPT_PATH}" defer></script>`,
      state.status,
    )

  const secondFactorPage = (
    request: Request,
    response: Response,
    tokens: { readonly resetToken: string; readonly pendingToken: string },
    message?: string,
  ) => {
    const hidden = html`<input type="hidden" name="csrf_token" value="${forms.token(request, response)}">
      <input type="hidden" name="reset_token" value="${tokens.resetToken}">
      <input type="hidden" name="pending_token" value="${tokens.pendingToken}">`
    return show(
      request,
      response,
      'Two-step sign-in',
      html`${message === undefined ? '' : html`<p class="notice warning" role="alert">${message}</p>`}
        <p class="lead">The code was right. This account has two-step sign-in: enter the code of your
          authenticator app, and the new password is set. A mail alone never resets a protected account.</p>
        <div class="grid">
          <form method="post" action="${SECOND_FACTOR_PATH}" class="stack card" aria-label="Confirm with a code">
            ${hidden}<label>Six-digit code <input name="code" inputmode="numeric" autocomplete="one-time-code"
              pattern="[0-9 ]{6,8}" maxlength="8" required></label>
            <div><button type="submit">Set the new password</button></div></form>
          <form method="post" action="${SECOND_FACTOR_PATH}" class="stack card" aria-label="Confirm with a recovery code">
            ${hidden}<label>Recovery code <input name="recovery_code" autocomplete="off" maxlength="20" required></label>
            <div><button type="submit" class="secondary">Use a recovery code</button></div>
            <p class="muted">Each recovery code works once.</p></form>
        </div>`,
      message === undefined ? 200 : 401,
    )
  }

  // The passkey step: the assertion options and the reset token go to the script (passkeys.js), which
  // asks the authenticator and posts the assertion to the JSON route; the ceremony cookie binds the
  // challenge to this browser.
  const passkeyPage = (request: Request, response: Response, pending: ResetPendingPasskey) => {
    const ceremony = pending.ceremony
    if (!ceremony.bindingReused) {
      const seconds = Math.max(1, Math.ceil((ceremony.expiresAt.getTime() - Date.now()) / 1000))
      response.append('Set-Cookie', browserBindingCookie(ceremony.revealBrowserBinding(), seconds))
    }
    return show(
      request,
      response,
      'Confirm with your passkey',
      html`<p class="lead">The code was right. This account has a passkey: confirm with it, and the new
          password is set. A mail alone never resets a protected account.</p>
        <div class="stack card"><div><button type="button" data-passkey-reset
          data-reset-token="${pending.revealResetToken()}" data-options="${JSON.stringify(ceremony.options)}"
          data-done="${DONE_PATH}">Confirm with your passkey</button></div>
          <p class="muted">If it is refused, ask for a new code: each confirmation is tried once.</p></div>
        <p class="notice error" role="alert" data-passkey-status hidden></p>
        <script src="${PASSKEYS_SCRIPT_PATH}" defer></script>`,
    )
  }

  router.get(FORGOT_PASSWORD_PATH, { auth: anonymous() }, (request, response) =>
    requestPage(request, response),
  )

  router.post(FORGOT_PASSWORD_PATH, { auth: anonymous() }, form, async (request, response) => {
    if (!forms.passes(request)) return refused(request, response)
    try {
      const { flow } = await accountEmail.requestPasswordReset(
        { email: field(request, 'email') },
        requestInfo(request),
      )
      wake()
      codePageHeaders(response)
      response.redirect(303, `${RESET_PASSWORD_PATH}?${new URLSearchParams({ flow, sent: '1' })}`)
    } catch (error) {
      const { status, message } = refusal(error)
      retryHint(response, error)
      await requestPage(request, response, { status, message, ...(status === 400 ? { field: 'email' } : {}) })
    }
  })

  router.get(RESET_PASSWORD_PATH, { auth: anonymous() }, async (request, response) => {
    const flow = typeof request.query.flow === 'string' ? request.query.flow : ''
    if (flow === '' || flow.length > 2048) return response.redirect(303, FORGOT_PASSWORD_PATH)
    await codePage(request, response, flow)
  })

  router.post(RESET_PASSWORD_PATH, { auth: anonymous() }, form, async (request, response) => {
    if (!forms.passes(request)) return refused(request, response)
    const flow = field(request, 'flow')
    try {
      const outcome = await accountEmail.resetPassword(
        { flow, code: field(request, 'code'), password: field(request, 'password') },
        {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(request.headers.cookie),
          request: requestInfo(request),
          browserBinding: browserBindingFrom(request.headers.cookie),
        },
      )
      if (outcome.outcome === 'passkey') return passkeyPage(request, response, outcome)
      if (outcome.outcome === 'second-factor') {
        return secondFactorPage(request, response, {
          resetToken: outcome.revealResetToken(),
          pendingToken: outcome.pending.reveal(),
        })
      }
      wake()
      codePageHeaders(response)
      response.redirect(303, DONE_PATH)
    } catch (error) {
      const code = (error as { code?: unknown }).code
      const { status, message } = refusal(error)
      retryHint(response, error)
      const about =
        code === 'local.invalid_password' || code === 'local.password_screened'
          ? 'password'
          : code === 'account_email.invalid_code'
            ? 'code'
            : undefined
      await codePage(request, response, flow, {
        status,
        message,
        ...(about === undefined ? {} : { field: about }),
      })
    }
  })

  router.post(SECOND_FACTOR_PATH, { auth: anonymous() }, form, async (request, response) => {
    if (!forms.passes(request)) return refused(request, response)
    const tokens = {
      resetToken: field(request, 'reset_token'),
      pendingToken: field(request, 'pending_token'),
    }
    const recoveryCode = field(request, 'recovery_code')
    try {
      await accountEmail.completeResetSecondFactor(
        { ...tokens, ...(recoveryCode === '' ? { code: field(request, 'code') } : { recoveryCode }) },
        { transport: 'session', request: requestInfo(request) },
      )
      wake()
      codePageHeaders(response)
      response.redirect(303, DONE_PATH)
    } catch (error) {
      const code = String((error as { code?: unknown }).code)
      const { status, message } = refusal(error)
      retryHint(response, error)
      // A wrong authenticator code keeps the pending reset (until it expires): the same page again.
      if (status === 401 && code.startsWith('totp.') && code !== 'totp.pending_invalid')
        return secondFactorPage(request, response, tokens, message)
      await requestPage(request, response, { status, message })
    }
  })

  router.get(DONE_PATH, { auth: anonymous() }, (request, response) =>
    show(
      request,
      response,
      'Password reset',
      html`<p class="notice success" role="status" data-testid="reset-done">Your password is reset. Every session of
          the account was signed out, on every device, and a notification went to its address.</p>
        <p><a class="button" href="${SIGN_IN_PATH}">Sign in with the new password</a></p>`,
    ),
  )
  return router
}
