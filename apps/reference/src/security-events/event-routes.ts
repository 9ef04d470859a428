import { required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import type { LoggedEvent } from './event-log.js'

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  'login.succeeded': 'Signed in',
  'login.failed': 'Sign-in failed',
  'login.rate_limited': 'Sign-in rate limited',
  'session.created': 'Session started',
  'session.revoked': 'Session ended',
  'refresh.reuse_detected': 'Refresh token reuse detected',
  'password.changed': 'Password changed',
  'epoch.bumped': 'All sessions and tokens invalidated',
  'csrf.refused': 'Cross-site request refused',
  'step_up.issued': 'Step-up credential issued',
  'step_up.consumed': 'Step-up credential used',
  'api_key.issued': 'API key issued',
  'api_key.rotated': 'API key rotated',
  'api_key.revoked': 'API key revoked',
}

function row(event: LoggedEvent) {
  const fields = Object.entries(event.fields)
  return html`<tr>
    <td><time datetime="${event.at.toISOString()}">${event.at.toISOString().replace('T', ' ').slice(0, 19)}</time></td>
    <td><code>${event.type}</code><br><span class="muted">${DESCRIPTIONS[event.type] ?? ''}</span></td>
    <td>${fields.length === 0 ? html`<span class="muted">–</span>` : fields.map(([name, value]) => html`<span class="muted">${name}</span> <code>${value}</code><br>`)}</td>
  </tr>`
}

/** `/events`: the signed-in account's own recent security events (newest first), from the in-memory log. */
export function eventRoutes(security: Pick<Security, 'router'>, context: ReferenceContext): SecureRouter {
  const router = security.router()
  router.get('/events', { auth: required(SESSION_MECHANISM) }, async (request, response) => {
    const events = context.events.recent(request.security.principal.id)
    const refusals = context.events.unattributed()
    sendPage(response, {
      title: 'Security events',
      area: 'events',
      viewer: await viewerFor(request.security, context.directory),
      body: html`<p class="lead">Every <code>SecurityEvent</code> Portcullis emits goes to the application's sink.
        This demo keeps the last 50 per account in memory (a production app sends them to its audit log or SIEM).
        Events carry ids, reasons and addresses, never passwords, tokens, keys or digests.</p>
        ${
          events.length === 0
            ? html`<p class="muted">No events yet.</p>`
            : html`<table data-testid="events"><thead><tr><th>When (UTC)</th><th>Event</th><th>Details</th></tr></thead>
              <tbody>${events.map(row)}</tbody></table>`
        }
        <h2>Cross-site requests refused (whole site)</h2>
        <p class="muted">A cross-site form post is refused before its session is read, so the refusal names no
          account: the last ones of the whole site are listed here.</p>
        ${
          refusals.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<table data-testid="refusals"><thead><tr><th>When (UTC)</th><th>Event</th><th>Details</th></tr></thead>
              <tbody>${refusals.map(row)}</tbody></table>`
        }`,
    })
  })
  return router
}
