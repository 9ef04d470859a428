/** Markup that is already safe: produced by `html` or `raw`, never by string concatenation. */
export class SafeHtml {
  readonly #text: string

  constructor(text: string) {
    this.#text = text
  }

  toString(): string {
    return this.#text
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character)
}

/** What may be interpolated: text is escaped, `SafeHtml` is kept, lists are joined, nothing renders empty. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString()
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false || value === true) return ''
  return escapeHtml(String(value))
}

/** The page template tag: every interpolated value is escaped unless it is `SafeHtml`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let text = strings[0] ?? ''
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '')
  })
  return new SafeHtml(text)
}

/** Trusted markup (a constant of this app); never pass request data. */
export function raw(text: string): SafeHtml {
  return new SafeHtml(text)
}
