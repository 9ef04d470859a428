import { html, type SafeHtml } from '../layout/html.js'
import { readableTime } from '../layout/readable.js'

/** One client the viewer connected (a grant of the authorization server). */
export interface ConnectedAppView {
  readonly grantId: string
  readonly clientId: string
  /** The client's own name, from its metadata document or registration (untrusted text). */
  readonly clientName: string | undefined
  /** The host that vouches for the client: its `client_id` URL's host, or its redirect URI's. */
  readonly clientHost: string | undefined
  readonly scopes: readonly string[]
  readonly createdAt: Date
  readonly lastUsedAt: Date | undefined
}

export interface ConnectedAppsPageInput {
  readonly apps: readonly ConnectedAppView[]
  readonly mcpUrl: string
  readonly notice?: SafeHtml
  readonly now?: Date
}

function row(app: ConnectedAppView, now: Date): SafeHtml {
  return html`<tr data-grant="${app.grantId}">
    <td><strong data-testid="client-host">${app.clientHost ?? 'unknown host'}</strong><br>
      <span class="muted">${app.clientName ?? app.clientId}</span></td>
    <td>${app.scopes.map((scope) => html`<code>${scope}</code> `)}</td>
    <td>${readableTime(app.createdAt, now)}</td>
    <td>${app.lastUsedAt === undefined ? html`<span class="muted">never</span>` : readableTime(app.lastUsedAt, now)}</td>
    <td><form method="post" action="/connected-apps/${app.grantId}/disconnect" class="inline" aria-label="Disconnect ${app.clientHost ?? app.clientId}">
      <button type="submit" class="secondary">Disconnect</button></form></td></tr>`
}

/**
 * The "Connected apps" page: every MCP client the viewer let in (client host first: the name is the
 * client's own claim, the host is what vouches for it), its scopes, when it was connected and last
 * refreshed its tokens, and a button that ends the grant on every instance at once.
 */
export function connectedAppsPage(input: ConnectedAppsPageInput): SafeHtml {
  const now = input.now ?? new Date()
  const list =
    input.apps.length === 0
      ? html`<p data-testid="no-apps">No app is connected. Give an MCP client <code>${input.mcpUrl}</code>: it
          sends you here to sign in and approve it.</p>`
      : html`<table data-testid="connected-apps"><thead><tr><th>App</th><th>Scopes</th><th>Connected</th>
          <th>Last used</th><th></th></tr></thead>
          <tbody>${input.apps.map((app) => row(app, now))}</tbody></table>`
  return html`${input.notice ?? ''}<p class="lead">Apps and AI agents you connected with OAuth. Each reads only
    what its scopes and your own access allow; disconnecting one refuses its next request everywhere.</p>
    ${list}`
}
