import type { IssuedApiKey } from '@portcullis/core/api-keys'
import type { CredentialRestrictions } from '@portcullis/core/authentication'
import { type HtmlValue, html, type SafeHtml } from '../layout/html.js'
import type { OwnedKey } from './owned-keys.js'

export const OVERLAP_CHOICES: readonly { readonly seconds: number; readonly label: string }[] = [
  { seconds: 0, label: 'none (the old key stops now)' },
  { seconds: 300, label: '5 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
]

export const LIFETIME_CHOICES: readonly { readonly days: number; readonly label: string }[] = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 0, label: 'no expiry' },
]

const when = (date: Date | undefined): HtmlValue =>
  date === undefined
    ? html`<span class="muted">–</span>`
    : html`<time datetime="${date.toISOString()}">${date.toISOString().replace('T', ' ').slice(0, 16)}</time>`

function restrictionText(restrictions: CredentialRestrictions): string {
  const parts: string[] = []
  if (restrictions.scopes !== undefined) parts.push(`scopes: ${restrictions.scopes.join(', ') || 'none'}`)
  if (restrictions.tenants !== undefined) {
    parts.push(
      `tenants: ${Object.entries(restrictions.tenants)
        .map(([tenant, roles]) => `${tenant} (${roles.join(', ')})`)
        .join(', ')}`,
    )
  }
  return parts.length === 0 ? 'all of your grants' : parts.join('; ')
}

/** The key, shown once, with what to do with it. */
export function issuedKeyNotice(issued: IssuedApiKey, origin: string, what: string): SafeHtml {
  return html`<div class="notice success" role="status">
    <p><strong>${what}.</strong> Copy it now: it is shown <strong>once</strong>. The database keeps only an
    HMAC-SHA256 digest under a server-side pepper, so nobody (not even this page) can show it again.</p>
    <code class="secret" data-testid="issued-key">${issued.value}</code>
    <p>Try it: <code>curl -H 'X-API-Key: ${issued.value}' ${origin}/api/whoami</code></p>
  </div>`
}

function keyRow(key: OwnedKey): SafeHtml {
  const live = key.status === 'active'
  return html`<tr data-key-id="${key.keyId}">
    <td><code>${key.keyId}</code><br><span class="muted">${key.label ?? ''}</span></td>
    <td><span class="badge ${key.status}" data-testid="status">${key.status}</span>
      ${key.status === 'overlap' ? html`<br><span class="muted">until</span> ${when(key.overlapUntil)}` : ''}</td>
    <td>${restrictionText(key.restrictions)}</td>
    <td>${when(key.createdAt)}<br><span class="muted">expires</span> ${when(key.expiresAt)}</td>
    <td>${when(key.lastUsedAt)}</td>
    <td>${
      live
        ? html`<form method="post" action="/keys/${key.keyId}/rotate" class="row">
            <label>Overlap <select name="overlap">${OVERLAP_CHOICES.map(
              (choice) =>
                html`<option value="${choice.seconds}"${choice.seconds === 3600 ? html` selected` : ''}>${choice.label}</option>`,
            )}</select></label>
            <button type="submit" class="secondary">Rotate</button>
          </form>
          <form method="post" action="/keys/${key.keyId}/revoke" class="inline">
            <button type="submit" class="danger">Revoke</button>
          </form>`
        : ''
    }</td>
  </tr>`
}

export interface KeysPageInit {
  readonly keys: readonly OwnedKey[]
  readonly tenants: readonly string[]
  readonly notice?: SafeHtml
}

/** The API-key page body: what a key is, the owner's keys, and the issue form. */
export function keysPage(init: KeysPageInit): SafeHtml {
  return html`<p class="lead">Keys act as you (their owner) towards the API and the MCP endpoint, narrowed by
    the restrictions you choose. Issue, rotate with an overlap so clients can switch without downtime, and revoke.</p>
  ${init.notice ?? ''}
  <h2>Your keys</h2>
  ${
    init.keys.length === 0
      ? html`<p class="muted">No keys yet.</p>`
      : html`<table data-testid="keys">
          <thead><tr><th>Key id</th><th>Status</th><th>Restrictions</th><th>Created (UTC)</th><th>Last used</th><th></th></tr></thead>
          <tbody>${init.keys.map(keyRow)}</tbody>
        </table>`
  }
  <h2>Issue a key</h2>
  <form method="post" action="/keys" class="stack card">
    <label>Label <input name="label" maxlength="60" placeholder="nightly export" required></label>
    <label>Scopes <select name="scopes">
      <option value="all">all of your scopes</option>
      <option value="reports:read">reports:read only</option>
    </select></label>
    <label>Tenants <select name="tenant">
      <option value="">all of your tenants</option>
      ${init.tenants.map((tenant) => html`<option value="${tenant}">only ${tenant}</option>`)}
    </select></label>
    <label>Lifetime <select name="days">${LIFETIME_CHOICES.map(
      (choice) =>
        html`<option value="${choice.days}"${choice.days === 30 ? html` selected` : ''}>${choice.label}</option>`,
    )}</select></label>
    <button type="submit">Issue key</button>
  </form>`
}
