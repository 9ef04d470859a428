// Templates turn a checked message into a subject, a plain-text part and an HTML part. A template set
// has one template per kind; the application replaces it wholly, or per kind over the defaults, or
// chooses one per locale.
import { MailError, MailErrorCodes } from './errors.js'
import { MAX_SUBJECT_LENGTH, requireHeaderText } from './headers.js'
import { isSafeHtml, type SafeHtml } from './html.js'
import type { MailMessage, MailMessageKind, MailMessageOf } from './messages.js'
import { validateMailMessage } from './validate.js'

/** What every template is told besides its message. */
export interface MailTemplateContext {
  /** The product's name as people know it (`Example`), from the renderer's options. */
  readonly appName: string
}

/** What a template returns. The HTML part is `SafeHtml`, so its values went through `html` escaping. */
export interface MailTemplateOutput {
  /** One line: a control character in it is refused (`mail.header_injection`). */
  readonly subject: string
  readonly text: string
  readonly html: SafeHtml
  /** The language the template wrote in (the `Content-Language` header); the message's locale when absent. */
  readonly language?: string
}

/** The template of one kind of message. */
export type MailTemplate<K extends MailMessageKind> = (
  message: MailMessageOf<K>,
  context: MailTemplateContext,
) => MailTemplateOutput

/** One template per kind of message. */
export type MailTemplates = { readonly [K in MailMessageKind]: MailTemplate<K> }

/** A message ready for a transport: checked, rendered, every header value free of controls. */
export interface RenderedMail {
  readonly message: MailMessage
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly language: string
}

/** A template set with some kinds replaced: `overrideTemplates(defaultMailTemplates, { 'password-reset': mine })`. */
export function overrideTemplates(base: MailTemplates, overrides: Partial<MailTemplates>): MailTemplates {
  return { ...base, ...overrides }
}

/**
 * A template set that picks one set per locale: the message's locale, then its language without
 * region or script (`fr-CA`, then `fr`), then `fallback`. Tags compare case-insensitively.
 */
export function templatesByLocale(
  sets: Readonly<Record<string, MailTemplates>>,
  fallback: MailTemplates,
): MailTemplates {
  const byTag = new Map(Object.entries(sets).map(([tag, set]) => [tag.toLowerCase(), set]))
  const pick = (locale: string): MailTemplates => {
    const parts = locale.toLowerCase().split('-')
    for (let length = parts.length; length > 0; length--) {
      const set = byTag.get(parts.slice(0, length).join('-'))
      if (set !== undefined) return set
    }
    return fallback
  }
  const kinds = Object.keys(fallback) as MailMessageKind[]
  return Object.fromEntries(
    kinds.map((kind) => [
      kind,
      (message: MailMessage, context: MailTemplateContext) =>
        (pick(message.locale)[kind] as (m: MailMessage, c: MailTemplateContext) => MailTemplateOutput)(
          message,
          context,
        ),
    ]),
  ) as unknown as MailTemplates
}

export interface MailRendererOptions {
  readonly templates: MailTemplates
  readonly appName: string
}

/** Checks a message and renders it with its kind's template. */
export class MailRenderer {
  readonly #templates: MailTemplates
  readonly #context: MailTemplateContext

  constructor(options: MailRendererOptions) {
    for (const kind of Object.keys(options.templates ?? {})) {
      if (typeof (options.templates as unknown as Record<string, unknown>)[kind] !== 'function') {
        throw new MailError(MailErrorCodes.templateFailed, `the template of ${kind} is not a function`, {
          field: kind,
        })
      }
    }
    this.#templates = options.templates
    this.#context = { appName: requireHeaderText(options.appName, 'appName', 100) }
  }

  /**
   * Throws `MailError`: the message's own codes when it is malformed, `mail.template_failed` when the
   * template throws or returns the wrong shape, `mail.header_injection` for a subject with a control.
   */
  render(message: MailMessage): RenderedMail {
    const checked = validateMailMessage(message)
    const template = this.#templates[checked.kind] as
      | ((m: MailMessage, c: MailTemplateContext) => MailTemplateOutput)
      | undefined
    if (typeof template !== 'function') {
      throw new MailError(MailErrorCodes.templateFailed, `no template for ${checked.kind}`, {
        field: checked.kind,
      })
    }
    let output: MailTemplateOutput
    try {
      output = template(checked, this.#context)
    } catch {
      throw new MailError(MailErrorCodes.templateFailed, `the template of ${checked.kind} threw`, {
        field: checked.kind,
      })
    }
    if (typeof output?.text !== 'string' || !isSafeHtml(output.html)) {
      throw new MailError(
        MailErrorCodes.templateFailed,
        `the template of ${checked.kind} must return a subject, a text and html\`...\``,
        { field: checked.kind },
      )
    }
    const subject = requireHeaderText(output.subject, 'subject', MAX_SUBJECT_LENGTH)
    const language = output.language ?? checked.locale
    if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(language)) {
      throw new MailError(
        MailErrorCodes.templateFailed,
        `the template of ${checked.kind} named a bad language`,
        {
          field: 'language',
        },
      )
    }
    return { message: checked, subject, text: output.text, html: output.html.markup, language }
  }
}
