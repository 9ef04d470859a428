import { required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import { readableTime } from '../layout/readable.js'
import type { LoggedEvent } from './event-log.js'
import { eventAddress, eventSentence } from './event-words.js'

function item(event: LoggedEvent, now: Date) {
  const fields = Object.entries(event.fields)
  return html`<li data-event="${event.type}"><p><span class="sentence">${eventSentence(event)}</span>
    <span class="muted">${readableTime(event.at, now)}${eventAddress(event) === undefined ? '' : html`, from address ${eventAddress(event)}`}</span></p>
    <details class="developer"><summary>Details for developers</summary>
      <p><code>${event.type}</code> at <code>${event.at.toISOString()}</code></p>
      ${fields.length === 0 ? '' : html`<ul>${fields.map(([name, value]) => html`<li><code>${name}</code>: <code>${value}</code></li>`)}</ul>`}
    </details></li>`
}

/**
 * `/events`: the signed-in account's own recent security events, newest first, one sentence each (the
 * raw event folded away for developers). Nobody sees another account's events, nor the site's.
 */
export function eventRoutes(security: Pick<Security, 'router'>, context: ReferenceContext): SecureRouter {
  const router = security.router()
  router.get('/events', { auth: required(SESSION_MECHANISM) }, async (request, response) => {
    const events = context.events.recent(request.security.principal.id)
    const now = new Date()
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      title: 'Security events',
      area: 'events',
      viewer: await viewerFor(request.security, context.directory),
      body: html`<p class="lead">What happened to your account lately: sign-ins, confirmations, changes to how you
        sign in, API keys. Only you see this list; it keeps your last 50 events while the app runs.</p>
        ${
          events.length === 0
            ? html`<p class="muted">Nothing yet.</p>`
            : html`<ol class="events card" data-testid="events">${events.map((event) => item(event, now))}</ol>`
        }`,
    })
  })
  return router
}
