import type { CredentialRestrictions } from '@portcullis/core/authentication'
import { type HtmlValue, html, type SafeHtml } from '../layout/html.js'
import { copyButton } from '../layout/layout.js'
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

/** What a scope lets a key do, as its owner reads it. */
const SCOPE_WORDS: Readonly<Record<string, string>> = { 'reports:read': 'read reports' }

/** What the key may do, in words (the raw scopes and roles for developers, in the title). */
function restrictionText(restrictions: CredentialRestrictions): SafeHtml {
  const parts: string[] = []
  const raw: string[] = []
  if (restrictions.scopes !== undefined) {
    parts.push(
      restrictions.scopes.length === 0
        ? 'nothing'
        : `only ${restrictions.scopes.map((scope) => SCOPE_WORDS[scope] ?? scope).join(', ')}`,
    )
    raw.push(`scopes: ${restrictions.scopes.join(' ')}`)
  }
  if (restrictions.tenants !== undefined) {
    const tenants = Object.entries(restrictions.tenants)
    parts.push(`in ${tenants.map(([tenant, roles]) => `${tenant} (as ${roles.join(', ')})`).join(', ')} only`)
    raw.push(`tenants: ${tenants.map(([tenant, roles]) => `${tenant}=${roles.join('+')}`).join(' ')}`)
  }
  return parts.length === 0
    ? html`everything you may do`
    : html`<span title="${raw.join('; ')}">${parts.join(', ')}</span>`
}

/** The key, shown once, with what to do with it. */
export function issuedKeyNotice(value: string, origin: string, what: string): SafeHtml {
  return html`<div class="notice success" role="status">
    <p><strong>${what}.</strong> Copy it now: it is shown <strong>once</strong>. This app keeps only a
    fingerprint of it, so nobody (not even this page) can show it again.</p>
    <div class="copyable"><code class="secret" id="issued-key" data-testid="issued-key">${value}</code>${copyButton('issued-key', 'Copy the key')}</div>
    <p>Try it: <code>curl -H 'X-API-Key: ${value}' ${origin}/api/whoami</code></p>
    <details class="developer"><summary>Details for developers</summary>
      <p>The database keeps an HMAC-SHA256 digest of the key under a server-side pepper.</p></details>
  </div>`
}

const STATUS_WORDS: Readonly<Record<string, string>> = {
  active: 'active',
  overlap: 'being replaced',
  revoked: 'revoked',
  expired: 'expired',
}

function keyRow(key: OwnedKey): SafeHtml {
  const live = key.status === 'active'
  const revocable = live || key.status === 'overlap'
  return html`<tr data-key-id="${key.keyId}">
    <td data-label="Key"><strong>${key.label ?? 'unnamed key'}</strong><br><code>${key.keyId}</code></td>
    <td data-label="Status"><span class="badge ${key.status}" data-testid="status" data-status="${key.status}">${STATUS_WORDS[key.status] ?? key.status}</span>
      ${key.status === 'overlap' ? html`<br><span class="muted">works until</span> ${when(key.overlapUntil)}` : ''}</td>
    <td data-label="May use">${restrictionText(key.restrictions)}</td>
    <td data-label="Created">${when(key.createdAt)}<br><span class="muted">expires</span> ${when(key.expiresAt)}</td>
    <td data-label="Last used">${when(key.lastUsedAt)}</td>
    <td>${
      live
        ? html`<form method="post" action="/keys/${key.keyId}/rotate" class="row">
            <label>Old key keeps working <select name="overlap">${OVERLAP_CHOICES.map(
              (choice) =>
                html`<option value="${choice.seconds}"${choice.seconds === 3600 ? html` selected` : ''}>${choice.label}</option>`,
            )}</select></label>
            <button type="submit" class="secondary">Replace</button>
          </form>`
        : ''
    }${revocable ? html`<p><a class="button danger" href="/keys/${key.keyId}/revoke">Revoke</a></p>` : ''}</td>
  </tr>`
}

/** The confirmation of a revocation: which key, what stops working. */
export function revokePage(key: OwnedKey): SafeHtml {
  return html`<p class="lead">Programs using the key <strong>${key.label ?? 'unnamed key'}</strong>
      (<code>${key.keyId}</code>) will be refused at once. This cannot be undone.</p>
    <form method="post" action="/keys/${key.keyId}/revoke" class="card" aria-label="Revoke the key">
      <div class="actions"><button type="submit" class="danger">Revoke the key</button> <a href="/keys">Cancel</a></div>
    </form>`
}

export interface KeysPageInit {
  readonly keys: readonly OwnedKey[]
  readonly tenants: readonly string[]
  readonly notice?: SafeHtml
}

/** The API-key page body: what a key is, the owner's keys, and the issue form. */
export function keysPage(init: KeysPageInit): SafeHtml {
  return html`<p class="lead">A key lets a program act as you towards the API and the MCP endpoint, limited to
    what you choose. Replace a key with an overlap, so programs can switch without a gap, and revoke it when
    it is no longer needed.</p>
  ${init.notice ?? ''}
  <h2>Your keys</h2>
  ${
    init.keys.length === 0
      ? html`<p class="muted">No keys yet.</p>`
      : html`<table data-testid="keys">
          <thead><tr><th>Key</th><th>Status</th><th>May use</th><th>Created (UTC)</th><th>Last used</th><th></th></tr></thead>
          <tbody>${init.keys.map(keyRow)}</tbody>
        </table>`
  }
  <h2>Issue a key</h2>
  <form method="post" action="/keys" class="stack card">
    <label>Label <input name="label" maxlength="60" placeholder="nightly export" required></label>
    <label>What it may do <select name="scopes">
      <option value="all">everything you may do</option>
      <option value="reports:read">only read reports</option>
    </select></label>
    <label>Where <select name="tenant">
      <option value="">in all of your tenants</option>
      ${init.tenants.map((tenant) => html`<option value="${tenant}">only in ${tenant}</option>`)}
    </select></label>
    <label>Lifetime <select name="days">${LIFETIME_CHOICES.map(
      (choice) =>
        html`<option value="${choice.days}"${choice.days === 30 ? html` selected` : ''}>${choice.label}</option>`,
    )}</select></label>
    <div><button type="submit">Issue key</button></div>
  </form>`
}
