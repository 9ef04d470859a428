import { report } from './connection-notice.js'
import type { InteractionsOptions, InteractionUser } from './options.js'
import { escapeHtml, PAGE_PARTS_STYLE } from './pages.js'

export const IMPERSONATION_REFUSED_TITLE = 'Not during an impersonation'
export const IMPERSONATION_REFUSED_DETAIL =
  'An administrator acting as this account cannot connect an app: the connection would outlast the impersonation. Deny sends the app back; end the impersonation to connect it as yourself.'

/** The refusal page's content: why, and the one answer left (Deny sends the client `access_denied`). */
export function impersonationRefusedBody(view: {
  readonly action: string
  readonly csrfToken: string
  readonly code: string
}): string {
  return `${PAGE_PARTS_STYLE}<div class="pc-page" data-impersonation-refused>
<p data-detail>${escapeHtml(IMPERSONATION_REFUSED_DETAIL)}</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrfToken)}">
<div class="pc-actions"><button type="submit" class="pc-deny" name="decision" value="deny">Deny</button></div>
</form>
<details class="pc-details"><summary>Details for developers</summary><p>Code <code data-code>${escapeHtml(view.code)}</code></p></details>
</div>`
}

/** Tells `onImpersonationRefused`; it never fails or delays the page. */
export function reportImpersonationRefused(
  options: InteractionsOptions,
  user: InteractionUser,
  clientId: string,
): void {
  const impersonator = user.impersonator
  if (impersonator === undefined) return
  try {
    options.onImpersonationRefused?.({ accountId: user.accountId, impersonator, clientId })
  } catch (error) {
    report(options, error)
  }
}
