import { html, type SafeHtml } from '../layout/html.js'

/** Where the start form posts. */
export const IMPERSONATE_PATH = '/admin/impersonate'

/**
 * The "Impersonate" form of an account (on the administration page of that account): a reason and the
 * administrator's password (spent as a one-use `impersonation-start` step-up). Nothing for an account
 * that is not active.
 */
export function impersonateForm(accountId: string, active: boolean): SafeHtml {
  if (!active) return html``
  return html`<form method="post" action="${IMPERSONATE_PATH}" class="stack card" aria-label="Impersonate">
      <p>See the site as this account sees it, for a while. Its password, addresses and factors stay out of
        reach, every page says that you act on its behalf, and the start, the end and the reason are recorded.</p>
      <input type="hidden" name="account" value="${accountId}">
      <label>Reason for impersonating <input name="reason" maxlength="500" required></label>
      <label>Your password <input type="password" name="password" autocomplete="current-password" required></label>
      <div class="actions"><button type="submit">Impersonate</button></div>
    </form>`
}
