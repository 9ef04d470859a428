import { html, type SafeHtml } from '../layout/html.js'
import { CODE_LINK_SCRIPT_PATH, type Viewer } from '../layout/layout.js'
import { ACCEPT_INVITATION_PATH } from './organization-wiring.js'

/** Sign-up with the invited address (anonymous), then its verification with the password (signs in). */
export const INVITATION_SIGN_UP_PATH = '/organizations/invitations/sign-up'
export const INVITATION_VERIFY_PATH = '/organizations/invitations/verify'

/** What every step of the invitation carries: its flow id (the link's query) and its code (the fragment). */
export interface InvitationHidden {
  readonly flow: string
  readonly code: string
}

const flowField = (hidden: InvitationHidden) => html`<input type="hidden" name="flow" value="${hidden.flow}">`
const carried = (hidden: InvitationHidden) =>
  html`${flowField(hidden)}<input type="hidden" name="code" value="${hidden.code}">`

/**
 * The confirmation form (signed in): the code from the link's fragment (the script fills it in, or the
 * person types it from the mail), and one button. Only its POST accepts.
 */
export function acceptForm(input: {
  readonly hidden: InvitationHidden
  readonly viewer: Viewer | undefined
  readonly csrfToken: string
}): SafeHtml {
  return html`<p class="lead">You were invited to join an organization. Accepting makes
      <strong>${input.viewer?.displayName ?? 'this account'}</strong> a member, with the role the invitation names.</p>
    <form method="post" action="${ACCEPT_INVITATION_PATH}" class="stack card" aria-label="Accept the invitation">
      <input type="hidden" name="csrf_token" value="${input.csrfToken}">
      ${flowField(input.hidden)}
      <label>Invitation code <input name="code" autocomplete="off" maxlength="64" required value="${input.hidden.code}"
        data-code-from-link></label>
      <div><button type="submit">Accept the invitation</button></div>
    </form>
    <p class="muted">Only an account holding the invited address, verified, can accept. Not you?
      Sign out and open the link again.</p>`
}

/** The anonymous visitor: sign in with an existing account, or sign up here with the invited address. */
export function invitationSignUpForm(input: {
  readonly hidden: InvitationHidden
  readonly csrfToken: string
  readonly signInHref: string
  readonly email: string
  readonly message?: string
}): SafeHtml {
  return html`${input.message === undefined ? '' : html`<p class="notice warning" role="alert">${input.message}</p>`}
    <p class="lead">You were invited to join an organization.</p>
    <p>Already have an account? <a href="${input.signInHref}">Sign in</a>, then open the link from the mail again.</p>
    <form method="post" action="${INVITATION_SIGN_UP_PATH}" class="stack card" aria-label="Sign up to accept">
      <h2>New here? Create your account</h2>
      <input type="hidden" name="csrf_token" value="${input.csrfToken}">
      ${flowField(input.hidden)}
      <label>Invitation code <input name="code" autocomplete="off" maxlength="64" required value="${input.hidden.code}"
        data-code-from-link></label>
      <label>The address the invitation was sent to <input type="email" name="email" autocomplete="email"
        maxlength="254" required value="${input.email}"></label>
      <label>Password <input type="password" name="password" autocomplete="new-password" minlength="8" required></label>
      <div><button type="submit">Create the account</button></div>
    </form>
    <script src="${CODE_LINK_SCRIPT_PATH}" defer></script>`
}

/** After sign-up: the code mailed to the address, and the password again (it signs the person in). */
export function invitationVerifyForm(input: {
  readonly hidden: InvitationHidden
  readonly verification: string
  readonly email: string
  readonly csrfToken: string
}): SafeHtml {
  return html`<p class="notice" role="status" data-testid="sent">If <strong>${input.email}</strong> can take a
      new account, a verification code is on its way there.</p>
    <form method="post" action="${INVITATION_VERIFY_PATH}" class="stack card" aria-label="Verify the address">
      <input type="hidden" name="csrf_token" value="${input.csrfToken}">
      ${carried(input.hidden)}
      <input type="hidden" name="verification" value="${input.verification}">
      <input type="hidden" name="email" value="${input.email}">
      <label>Code from the verification mail <input name="mail_code" autocomplete="one-time-code" maxlength="64" required></label>
      <label>Your new password <input type="password" name="password" autocomplete="current-password" required></label>
      <div><button type="submit">Verify and sign in</button></div>
    </form>`
}
