// HTML for mail bodies: every value put into an `html` template is escaped unless it is already
// `SafeHtml` (the output of another `html` template, or markup the application vouches for).

const MARK: unique symbol = Symbol('portcullis.safe-html')

/** Markup that is safe to put in a message as it is. Made by `html` or `trustedHtml` only. */
export interface SafeHtml {
  readonly [MARK]: true
  readonly markup: string
}

/** Escapes `& < > " '`, which makes a value safe in element content and in quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/** Markup from elsewhere (another template engine that escapes for itself), used as it is. */
export function trustedHtml(markup: string): SafeHtml {
  return { [MARK]: true, markup }
}

export function isSafeHtml(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && (value as { [MARK]?: unknown })[MARK] === true
}

type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (Array.isArray(value)) return value.map(render).join('')
  if (isSafeHtml(value)) return value.markup
  return escapeHtml(String(value))
}

/**
 * A tagged template for HTML: `html\`<p>Hello ${name}</p>\`` escapes `name`; nested `html` results,
 * arrays of them, and `null`/`undefined`/`false` (nothing) are kept as markup.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? ''
  for (let index = 0; index < values.length; index++) {
    markup += render(values[index] as HtmlValue) + (strings[index + 1] ?? '')
  }
  return trustedHtml(markup)
}
