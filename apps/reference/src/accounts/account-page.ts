import type { AccountOverview, IdentitySignInMethod, PasswordSignInMethod } from '@portcullis/core/accounts'
import type { LocalSessionView } from '@portcullis/core/local-accounts'
import { html, type SafeHtml } from '../layout/html.js'
import { browserName, readableTime } from '../layout/readable.js'
import { providerLabel } from './confirm-pages.js'
import { DEMO_PROVIDER } from './oauth.js'
import { confirmPath } from './page-kit.js'

/** What the account page shows and offers. */
export interface AccountPageInput {
  readonly accountId: string
  readonly overview: AccountOverview | null
  readonly sessions: readonly LocalSessionView[]
  /** The demo IdP runs (link, and confirm sensitive actions there). */
  readonly idp: boolean
  /** What the last action did (a flash), shown at the top. */
  readonly notice?: SafeHtml
  /** The passkey and two-step sign-in sections. */
  readonly factors?: SafeHtml
  /** The addresses and the notification settings. */
  readonly email?: SafeHtml
  readonly now?: Date
}

const actionLink = (href: string, label: string, style = 'secondary') =>
  html`<a class="button ${style}" href="${href}">${label}</a>`

function passwordRow(
  password: PasswordSignInMethod | undefined,
  methods: number,
  idpLinked: boolean,
  now: Date,
): SafeHtml {
  if (password !== undefined) {
    return html`<tr data-method="password"><td data-label="Method">Password</td><td data-label="Username" data-testid="username">${password.username}</td>
      <td data-label="Set">${readableTime(password.passwordChangedAt, now)}</td>
      <td><div class="actions">${actionLink('/account/password', 'Change')} ${
        methods > 1
          ? actionLink(confirmPath('password-remove'), 'Remove', 'danger')
          : html`<span class="muted">your only way to sign in</span>`
      }</div></td></tr>`
  }
  return html`<tr data-method="password"><td data-label="Method">Password</td><td class="muted">none</td><td></td><td>${
    idpLinked ? actionLink(confirmPath('password-add'), 'Add a password') : ''
  }</td></tr>`
}

function identityRow(link: IdentitySignInMethod, methods: number, now: Date): SafeHtml {
  return html`<tr data-provider="${link.provider}"><td data-label="Provider">${providerLabel(link.provider)}
      <details class="developer"><summary>Details for developers</summary>
        <p>Issuer <code>${link.issuer}</code>, subject <code>${link.subject}</code></p></details></td>
    <td data-label="Linked">${readableTime(link.linkedAt, now)}</td>
    <td>${
      methods <= 1
        ? html`<span class="muted">your only way to sign in</span>`
        : actionLink(
            confirmPath('oauth-unlink', { provider: link.provider, id: link.providerAccountId }),
            'Unlink',
            'danger',
          )
    }</td></tr>`
}

/**
 * The account page: every sign-in method (the password, each linked identity), the passkeys and
 * two-step sign-in, the sessions, and deleting the account. No password is asked here: each guarded
 * action links to its confirmation page. Times read "3 minutes ago" (the exact time on hover), browsers
 * "Chrome 156 on Linux".
 */
export function accountPage(input: AccountPageInput): SafeHtml {
  const now = input.now ?? new Date()
  const methods = input.overview?.methods ?? []
  const password = methods.find((method): method is PasswordSignInMethod => method.kind === 'password')
  const links = methods.filter((method): method is IdentitySignInMethod => method.kind === 'identity')
  const demoLink = links.find((link) => link.provider === DEMO_PROVIDER)
  return html`${input.notice ?? ''}
    <h2>Sign-in methods</h2>
    <p class="muted">Ways to sign in to this one account${input.overview === null ? '' : html`, made ${readableTime(input.overview.account.createdAt, now)}`}.
      The last one can never be removed; removing one signs out your other sessions.</p>
    <table data-testid="methods"><thead><tr><th>Method</th><th>Username</th><th>Set</th><th></th></tr></thead><tbody>
      ${passwordRow(password, methods.length, demoLink !== undefined, now)}
    </tbody></table>
    <table data-testid="links"><thead><tr><th>Identity provider</th><th>Linked</th><th></th></tr></thead><tbody>
      ${links.map((link) => identityRow(link, methods.length, now))}
    </tbody></table>
    ${links.length === 0 ? html`<p class="muted">No identity provider is linked.</p>` : ''}
    ${
      input.idp && demoLink === undefined && password !== undefined
        ? html`<p>${actionLink(confirmPath('oauth-link'), 'Link the demo identity provider')}</p>`
        : ''
    }

    ${input.factors ?? ''}

    ${input.email ?? ''}

    <h2>Active sessions</h2>
    <p><a href="/account/sessions">Your devices</a> · <a href="/account/activity">Recent activity</a></p>
    <table data-testid="sessions"><thead><tr><th>Started</th><th>Last seen</th><th>Browser</th><th></th></tr></thead><tbody>
      ${input.sessions.map(
        (
          session,
        ) => html`<tr data-session="${session.id}"${session.current ? html` data-current="true"` : ''}>
          <td data-label="Started">${readableTime(session.createdAt, now)}</td><td data-label="Last seen">${readableTime(session.lastSeenAt, now)}</td>
          <td data-label="Browser">${browserName(session.userAgent)}${session.current ? html` <span class="badge">this browser</span>` : ''}</td>
          <td><form method="post" action="/account/sessions/${session.id}/revoke" class="inline">
            <button type="submit" class="secondary">Revoke</button></form></td></tr>`,
      )}
    </tbody></table>
    <form method="post" action="/account/sessions/revoke-all" class="inline">
      <button type="submit" class="secondary">Sign out everywhere</button></form>

    <h2>Delete the account</h2>
    <p class="muted">Removes the account and everything it owns. You confirm on the next page.</p>
    <p>${actionLink(confirmPath('delete-account'), 'Delete the account…', 'danger')}</p>
    <details class="developer"><summary>Details for developers</summary>
      <p>Account id <code data-testid="account-id">${input.accountId}</code></p></details>`
}
