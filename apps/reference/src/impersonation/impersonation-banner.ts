import { html, type SafeHtml } from '../layout/html.js'

/** Where the banner's End button posts (the impersonation pages' end route). */
export const END_IMPERSONATION_PATH = '/admin/impersonate/end'
/**
 * Where "Sign out everywhere else" posts during an impersonation: the person's sessions end, and so does
 * the impersonation, which hands the administrator's own session back (as End does).
 */
export const IMPERSONATION_SIGN_OUT_OTHERS_PATH = '/admin/impersonate/sign-out-everywhere-else'

/** Who acts during an impersonation, as the banner names them. */
export interface ActingFor {
  /** The account acted as (its name as the pages show it). */
  readonly account: string
  /** The administrator acting. */
  readonly administrator: string
}

/**
 * The banner of every page during an impersonation: who acts as whom, and the End button that hands
 * the administrator's own session back. Nothing is shown outside an impersonation.
 */
export function impersonationBanner(acting: ActingFor | undefined): SafeHtml {
  if (acting === undefined) return html``
  return html`<section class="notice warning" role="status" data-testid="impersonation-banner" aria-label="Impersonation">
      <p>You are acting as <strong>${acting.account}</strong> on behalf of <strong>${acting.administrator}</strong>.
        Password, address and factor changes are refused until the impersonation ends.</p>
      <form method="post" action="${END_IMPERSONATION_PATH}" class="inline">
        <button type="submit">End impersonation</button></form>
    </section>`
}
