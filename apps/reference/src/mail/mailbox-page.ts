import { optional, required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import { readableTime } from '../layout/readable.js'
import type { DevelopmentMailbox, ReceivedMail } from './development-mailbox.js'

/** Where the development mailbox is shown (only when it runs: never in production). */
export const MAILBOX_PATH = '/dev/mailbox'

const LINK = /https?:\/\/[^\s<>"']+/g
/** Trailing punctuation that ends a sentence rather than the link. */
const TRAILING = /[.,;:!?)\]]+$/

/** A message's text with its http(s) links made clickable; every other character escaped. */
export function linkedText(text: string): SafeHtml {
  const parts: (string | SafeHtml)[] = []
  let at = 0
  for (const match of text.matchAll(LINK)) {
    const start = match.index ?? 0
    const found = match[0]
    const link = found.replace(TRAILING, '')
    parts.push(text.slice(at, start))
    parts.push(html`<a href="${link}" rel="noreferrer">${link}</a>`)
    at = start + link.length
  }
  parts.push(text.slice(at))
  return html`${parts}`
}

function message(mail: ReceivedMail, now: Date): SafeHtml {
  return html`<article class="card mail" data-mail="${mail.id}" aria-labelledby="mail-${mail.id}">
    <h2 id="mail-${mail.id}" data-testid="mail-subject">${mail.subject || '(no subject)'}</h2>
    <dl class="facts">
      <dt>To</dt><dd data-testid="mail-to">${mail.to.join(', ')}</dd>
      <dt>From</dt><dd>${mail.from}</dd>
      <dt>Received</dt><dd>${readableTime(mail.receivedAt, now)}</dd>
    </dl>
    <div class="mail-text" data-testid="mail-text">${linkedText(mail.text)}</div>
  </article>`
}

/**
 * `/dev/mailbox`: every message the app's in-process SMTP server received, newest first, as its
 * plain-text part with the links clickable. Mounted only when the development mailbox runs; the page
 * shows codes and reset links, so it is never cached and sends no referrer.
 */
export function mailboxRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  mailbox: DevelopmentMailbox,
): SecureRouter {
  const router = security.router()
  router.get(MAILBOX_PATH, { auth: optional(required(SESSION_MECHANISM)) }, async (request, response) => {
    const viewer = await viewerFor(request.security, context.directory)
    const received = mailbox.list()
    const now = new Date()
    response.setHeader('Cache-Control', 'no-store')
    response.setHeader('Referrer-Policy', 'no-referrer')
    sendPage(response, {
      title: 'Development mailbox',
      area: 'none',
      viewer,
      body: html`<p class="lead">What this app sent, as an SMTP server in its own process received it
          (newest first). It runs in development only: with <code>SMTP_URL</code> set, or under
          <code>NODE_ENV=production</code>, mail goes to a real server and this page does not exist.</p>
        <p class="actions"><a class="button secondary" href="${MAILBOX_PATH}">Refresh</a>
          <span class="muted" data-testid="mail-count">${received.length === 1 ? '1 message' : `${received.length} messages`}</span></p>
        ${
          received.length === 0
            ? html`<p class="notice" data-testid="mailbox-empty">No mail yet. A password reset, an address to
                verify or a security notification arrives here a moment after it is sent.</p>`
            : received.map((mail) => message(mail, now))
        }`,
    })
  })
  return router
}
