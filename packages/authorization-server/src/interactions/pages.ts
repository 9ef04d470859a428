import type { IncomingMessage } from 'node:http'

/** A page of the authorization server, as the application's `layout` receives it. */
export interface InteractionPage {
  /**
   * `consent`; `continue` (the short step after the application's sign-in, see `continueBody`); or `error`
   * (an interaction that cannot go on, a refused authorization request).
   */
  readonly kind: 'consent' | 'continue' | 'error'
  /** The page's headline and title, plain text (the layout escapes it). */
  readonly title: string
  /** The page's content: HTML, every value in it already escaped. Insert it as it is. */
  readonly body: string
  /** The request, so the layout can read what else it shows. */
  readonly request: IncomingMessage
  /** The signed-in user the page is for, when the interaction knows one (the layout's header). */
  readonly account?: { readonly id: string; readonly name: string }
}

/**
 * The application's look: wraps a page's content into a whole HTML document (its header, its stylesheet
 * on the same origin; pages run under a CSP without script). Escape what it adds itself.
 */
export type InteractionLayout = (page: InteractionPage) => string | Promise<string>

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

/** Escapes text for an HTML element body or a double-quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character)
}

/**
 * The styles of the pages' own parts (the client card, scope lists, the two buttons). They travel with
 * the content, so a page looks right in the application's layout too; colours and fonts are inherited.
 */
export const PAGE_PARTS_STYLE = `<style>
.pc-page{max-width:34rem;overflow-wrap:anywhere}
.pc-card{border:1px solid rgba(127,127,127,.35);border-radius:.75rem;padding:1rem 1.25rem;margin:1rem 0}
.pc-client{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:0 0 .25rem}
.pc-name{font-size:1.25rem;font-weight:700}
.pc-badge{display:inline-block;font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;padding:.1rem .5rem;border-radius:999px;background:#fff3cd;color:#6b4a00;border:1px solid #e0c060}
.pc-host{margin:.25rem 0;color:inherit;opacity:.85}
.pc-note{font-size:.875rem;opacity:.8}
.pc-scopes{list-style:none;padding:0;margin:.5rem 0}
.pc-scopes li{padding:.5rem 0;border-top:1px solid rgba(127,127,127,.2)}
.pc-scopes code{font-size:.8125rem;opacity:.75;margin-left:.25rem}
.pc-actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
.pc-actions button{font:inherit;font-weight:600;min-width:8rem;padding:.6rem 1.25rem;border-radius:.5rem;cursor:pointer}
.pc-allow{background:#1f5fbf;color:#fff;border:1px solid #1f5fbf}
.pc-deny{background:transparent;color:inherit;border:1px solid rgba(127,127,127,.6)}
.pc-details{font-size:.8125rem;opacity:.8;margin-top:1rem}
</style>`

const DEFAULT_STYLE = `<style>
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1c2430;background:#f4f6f9}
header{background:#1c2430;color:#fff;padding:.75rem 1.25rem;font-weight:700}
main{background:#fff;max-width:36rem;margin:1.5rem auto;padding:1.25rem 1.5rem;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.5rem;line-height:1.25;margin:.25rem 0 1rem;overflow-wrap:anywhere}
@media (max-width:40rem){main{margin:0;border-radius:0;padding:1rem}}
</style>`

/** The look of the pages when the application supplies none: a plain, readable card. */
export function defaultLayout(page: Pick<InteractionPage, 'title' | 'body'>): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title>${DEFAULT_STYLE}</head><body><header>Authorization</header><main><h1>${escapeHtml(page.title)}</h1>${page.body}</main></body></html>`
}

/** The content of a page that cannot go on (unknown, expired, refused), with the code for support. */
export function errorBody(detail: string, code: string | undefined, technical?: string): string {
  const reason = technical === undefined ? '' : `<p data-technical>${escapeHtml(technical)}</p>`
  const support =
    code === undefined
      ? ''
      : `<details class="pc-details"><summary>Details for developers</summary><p>Code <code data-code>${escapeHtml(code)}</code></p>${reason}</details>`
  return `${PAGE_PARTS_STYLE}<div class="pc-page"><p data-detail>${escapeHtml(detail)}</p>${support}</div>`
}

/**
 * The step after the application's sign-in: a page that moves on to `location` by itself (a meta
 * refresh; no script) and offers a link. It ends the navigation that began with the sign-in form, whose
 * `form-action` would otherwise apply to every redirect after it, up to the client's redirect URI.
 */
export function continueBody(location: string): string {
  const target = escapeHtml(location)
  return `<meta http-equiv="refresh" content="0;url=${target}">${PAGE_PARTS_STYLE}<div class="pc-page"><p>Signed in. Taking you on to the application's request&hellip;</p><p><a href="${target}" data-continue>Continue</a></p></div>`
}
