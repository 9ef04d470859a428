import type { AccountSession } from '@portcullis/core/accounts'
import { localSessionOf, type SecuredRequest } from '@portcullis/express'
import type { Response } from 'express'
import type { ReferenceContext } from '../app-context.js'
import { type Flash, pageFlash, type SealedCookie } from '../layout/flash.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import { refusal, retryHint } from './forms.js'

/** What every account page handler shares: pages without caching, and POST/redirect/GET with a flash. */
export interface AccountKit {
  readonly flash: SealedCookie<Flash>
  /** Sends an account page (never cached: it may show what is shown once). */
  show(
    request: SecuredRequest,
    response: Response,
    title: string,
    body: SafeHtml,
    status?: number,
  ): Promise<void>
  /** The action is done: `flash` for the next page, then 303 to `to`. */
  done(request: SecuredRequest, response: Response, to: string, flash: Flash): void
  /**
   * The action was refused: its reason in words (beside the password field when a confirmation failed),
   * then 303 back to `to`, where the person acted. An error the pages do not word is thrown on.
   */
  failed(
    request: SecuredRequest,
    response: Response,
    error: unknown,
    to: string,
    words?: { readonly wrong?: string; readonly field?: string },
  ): void
  /** The flash the previous action left for this page (read once). */
  take(request: SecuredRequest, response: Response): Flash | undefined
  accountId(request: SecuredRequest): string
  session(request: SecuredRequest): AccountSession | undefined
}

/** The sentence of a missing confirmation (no password typed, no passkey confirmation left). */
export const CONFIRM_FIRST = 'Confirm with your password or a passkey first.'

export function accountKit(context: ReferenceContext): AccountKit {
  const flash = pageFlash(context)
  const accountId = (request: SecuredRequest) => request.security.principal?.id ?? ''
  return {
    flash,
    accountId,
    session: (request) => localSessionOf(request.security),
    async show(request, response, title, body, status = 200) {
      const viewer = await viewerFor(request.security, context.directory)
      response.setHeader('Cache-Control', 'no-store')
      sendPage(response, { title, area: 'account', viewer, body }, status)
    },
    done(request, response, to, value) {
      flash.set(response, accountId(request), value)
      response.redirect(303, to)
    },
    failed(request, response, error, to, words = {}) {
      const code = (error as { code?: unknown } | null)?.code
      const wrong = words.wrong ?? 'That password is wrong.'
      let message: string
      let field: string | undefined = words.field ?? 'password'
      if (code === 'account.final_method') {
        message = 'That is the last way to sign in to this account: add another one first.'
        field = undefined
      } else if (code === 'step-up.required') {
        message = CONFIRM_FIRST
      } else {
        const refused = refusal(error)
        retryHint(response, error)
        message = refused.status === 401 ? wrong : refused.message
        if (refused.status === 503 || refused.status === 409) field = undefined
      }
      flash.set(response, accountId(request), { error: message, ...(field === undefined ? {} : { field }) })
      response.redirect(303, to)
    },
    take: (request, response) => flash.take(request, response, accountId(request)),
  }
}

/** The notice a flash carries (what happened), for the top of the page it lands on. */
export function flashNotice(flash: Flash | undefined): SafeHtml {
  if (flash?.notice !== undefined)
    return html`<p class="notice success" role="status" data-testid="flash">${flash.notice}</p>`
  if (flash?.error !== undefined && flash.field === undefined)
    return html`<p class="notice error" role="alert" data-testid="flash">${flash.error}</p>`
  return html``
}

/** The error a flash carries for `field`, shown beside that field (and the input marked invalid). */
export function fieldError(
  flash: Flash | undefined,
  field: string,
): { readonly invalid: SafeHtml; readonly message: SafeHtml } {
  if (flash?.error === undefined || flash.field !== field) return { invalid: html``, message: html`` }
  return {
    invalid: html` aria-invalid="true" aria-describedby="${field}-error"`,
    message: html`<p class="field-error" id="${field}-error" role="alert" data-testid="field-error">${flash.error}</p>`,
  }
}

/** Where the account page links for `key` (the person chooses the action there, and confirms here). */
export function confirmPath(key: string, query: Readonly<Record<string, string>> = {}): string {
  const search = new URLSearchParams(query).toString()
  return `/account/confirm/${key}${search === '' ? '' : `?${search}`}`
}
