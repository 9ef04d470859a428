import type { AccountOverview, IdentitySignInMethod, PasswordSignInMethod } from '@portcullis/core/accounts'
import type { LocalSessionView } from '@portcullis/core/local-accounts'
import { html, type SafeHtml } from '../layout/html.js'
import { browserName, readableTime } from '../layout/readable.js'
import { confirmForm } from './factor-pages.js'
import { DEMO_PROVIDER } from './oauth.js'

/** What the account page shows and offers. */
export interface AccountPageInput {
  readonly accountId: string
  readonly overview: AccountOverview | null
  readonly sessions: readonly LocalSessionView[]
  /** The demo IdP runs (link, and confirm sensitive actions there). */
  readonly idp: boolean
  readonly notice?: { readonly message: string; readonly warning?: boolean } | undefined
  /** The passkey and two-step sign-in sections. */
  readonly factors?: SafeHtml
  /** The account has a usable passkey: guarded actions offer a passkey step-up too. */
  readonly passkeyStepUp?: boolean
  readonly now?: Date
}

const passwordField = html`<label>Password <input name="password" type="password" autocomplete="current-password" required></label>`

function passwordSection(
  password: PasswordSignInMethod | undefined,
  methods: number,
  idpLinked: boolean,
  now: Date,
): SafeHtml {
  if (password !== undefined) {
    return html`<tr data-method="password"><td>Password</td><td data-testid="username">${password.username}</td>
      <td>set ${readableTime(password.passwordChangedAt, now)}</td>
      <td>${
        methods > 1
          ? html`<form method="post" action="/account/password/remove" class="inline" aria-label="Remove the password">
          ${passwordField}<button type="submit" class="secondary">Confirm password and remove</button></form>`
          : html`<span class="muted">the last way to sign in</span>`
      }</td></tr>`
  }
  return html`<tr data-method="password"><td>Password</td><td class="muted">none</td><td></td><td>${
    idpLinked
      ? html`<form method="post" action="/auth/oauth/${DEMO_PROVIDER}/reauthenticate/password-add" class="inline">
          <input type="hidden" name="return_to" value="/account">
          <button type="submit" class="secondary">1. Confirm at the demo IdP</button></form>
        <form method="post" action="/account/password/add" class="stack" aria-label="Add a password">
          <label>Username <input name="username" autocomplete="username" required></label>
          <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="8" required></label>
          <button type="submit">2. Add the password</button></form>`
      : ''
  }</td></tr>`
}

function identityRow(link: IdentitySignInMethod, hasPassword: boolean, methods: number, now: Date): SafeHtml {
  const action =
    methods <= 1
      ? html`<span class="muted">the last way to sign in</span>`
      : hasPassword
        ? html`<form method="post" action="/account/unlink/${link.provider}/${link.providerAccountId}" class="inline" aria-label="Unlink ${link.provider}">
            ${passwordField}<button type="submit" class="secondary">Confirm password and unlink</button></form>`
        : ''
  return html`<tr><td>${link.provider}</td><td><code>${link.issuer}</code></td><td><code>${link.subject}</code></td>
    <td>${readableTime(link.linkedAt, now)}</td><td>${action}</td></tr>`
}

/**
 * The account page: every sign-in method (the password, each linked identity) with add and remove, the
 * sessions with their browsers, password change, and deleting the account. Times read "3 minutes ago"
 * (the exact time on hover), browsers "Chrome 156 on Linux".
 */
export function accountPage(input: AccountPageInput): SafeHtml {
  const now = input.now ?? new Date()
  const methods = input.overview?.methods ?? []
  const password = methods.find((method): method is PasswordSignInMethod => method.kind === 'password')
  const links = methods.filter((method): method is IdentitySignInMethod => method.kind === 'identity')
  const demoLink = links.find((link) => link.provider === DEMO_PROVIDER)
  const { notice } = input
  return html`${notice ? html`<p class="notice${notice.warning ? ' warning' : ''}" role="status">${notice.message}</p>` : ''}
    <div class="card"><dl class="facts">
      <dt>Account id</dt><dd><code>${input.accountId}</code></dd>
      <dt>Created</dt><dd>${input.overview === null ? '' : readableTime(input.overview.account.createdAt, now)}</dd>
    </dl></div>

    <h2>Sign-in methods</h2>
    <p class="muted">One account, several ways in. The last one can never be removed; removing one ends every
      other session of the account.</p>
    <table data-testid="methods"><thead><tr><th>Method</th><th>Name</th><th>Since</th><th></th></tr></thead><tbody>
      ${passwordSection(password, methods.length, demoLink !== undefined, now)}
    </tbody></table>
    <table data-testid="links"><thead><tr><th>Provider</th><th>Issuer</th><th>Subject</th><th>Linked</th><th></th></tr></thead><tbody>
      ${links.map((link) => identityRow(link, password !== undefined, methods.length, now))}
    </tbody></table>
    ${links.length === 0 ? html`<p class="muted">No identity provider is linked.</p>` : ''}
    ${
      input.idp && demoLink === undefined && password !== undefined
        ? html`<form method="post" action="/account/link/${DEMO_PROVIDER}" class="stack card" aria-label="Link the demo IdP">
          <p>Link an identity of the demo OpenID Provider. Linking needs a one-use step-up credential: confirm
            your password first.</p>
          ${passwordField}
          <div><button type="submit">Confirm password and link</button></div>
        </form>`
        : ''
    }
    ${
      demoLink !== undefined
        ? html`<p>Sensitive action: <a href="/account/recovery-codes">show recovery codes</a> (confirmed by a
          fresh login at the demo IdP).</p>`
        : ''
    }

    ${input.factors ?? ''}

    <h2>Active sessions</h2>
    <table data-testid="sessions"><thead><tr><th>Started</th><th>Last seen</th><th>Browser</th><th></th></tr></thead><tbody>
      ${input.sessions.map(
        (
          session,
        ) => html`<tr data-session="${session.id}"${session.current ? html` data-current="true"` : ''}>
          <td>${readableTime(session.createdAt, now)}</td><td>${readableTime(session.lastSeenAt, now)}</td>
          <td>${browserName(session.userAgent)}${session.current ? html` <span class="badge">this browser</span>` : ''}</td>
          <td><form method="post" action="/account/sessions/${session.id}/revoke" class="inline">
            <button type="submit" class="secondary">Revoke</button></form></td></tr>`,
      )}
    </tbody></table>
    <form method="post" action="/account/sessions/revoke-all" class="inline">
      <button type="submit" class="secondary">Sign out everywhere</button></form>
    ${
      password !== undefined
        ? html`<h2>Change password</h2>
        <form method="post" action="/account/password" class="stack card" aria-label="Change password">
          <label>Current password <input name="current_password" type="password" autocomplete="current-password" required></label>
          <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="8" required></label>
          <div><button type="submit">Change password</button></div>
          <p class="muted">Every other session of the account ends; this browser gets a new session.</p>
        </form>`
        : ''
    }

    <h2>Delete the account</h2>
    <p class="muted">Removes the account, its sign-in methods, sessions, API keys and provider tokens (revoked at
      the provider). It cannot be undone.</p>
    ${
      password !== undefined
        ? confirmForm({
            action: '/account/delete',
            purpose: 'delete-account',
            label: 'Delete the account',
            passkey: input.passkeyStepUp === true,
            danger: true,
          })
        : input.passkeyStepUp === true
          ? confirmForm({
              action: '/account/delete',
              purpose: 'delete-account',
              label: 'Delete the account',
              passkey: true,
              password: false,
              danger: true,
            })
          : demoLink !== undefined
            ? html`<div class="grid"><form method="post" action="/auth/oauth/${DEMO_PROVIDER}/reauthenticate/delete-account" class="card">
              <input type="hidden" name="return_to" value="/account">
              <button type="submit" class="secondary">1. Confirm at the demo IdP</button></form>
            <form method="post" action="/auth/account/delete" class="card" aria-label="Delete the account">
              <button type="submit" class="danger">2. Delete the account</button></form></div>`
            : ''
    }`
}
