import type { AccountService } from '@portcullis/core/accounts'
import {
  type AccountAdministration,
  ADMINISTRATION_STEP_UP_PURPOSE,
  type AdministrativeChange,
  administratorGuard,
} from '@portcullis/core/administration'
import { required } from '@portcullis/core/policy'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { Response } from 'express'
import { field, formBody, requestInfo } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit, fieldError, flashNotice } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { impersonateForm } from '../impersonation/impersonate-form.js'
import { html } from '../layout/html.js'
import { SIGN_IN_PATH } from '../layout/layout.js'
import { readableTime } from '../layout/readable.js'

export const ADMINISTRATION_PATH = '/admin/accounts'
/** The demo directory gives this role to its administrators. */
export const ADMINISTRATOR_ROLE = 'admin'

export interface AdministrationPagesOptions {
  readonly administration: AccountAdministration
  /** The password step-up of the administrator (one credential per change, spent at once). */
  readonly service: AccountService
}

type Action = 'disable' | 'enable' | 'sign-out' | 'password-reset' | 'delete' | 'revoke-key' | 'revoke-grant'
const ACTIONS: Readonly<Record<Action, string>> = {
  disable: 'The account is disabled: its sessions are refused everywhere and it cannot sign in.',
  enable: 'The account is enabled again.',
  'sign-out': 'Every session of the account is signed out.',
  'password-reset':
    'The account is signed out everywhere, and a password-reset mail is on its way to its verified address.',
  delete: 'The account is deleted, with everything of it.',
  'revoke-key': 'The API key is revoked: it is refused everywhere.',
  'revoke-grant': 'The connected app is disconnected: its tokens are refused.',
}

/** A button's `action` value: the operation, and for one key or grant its id (`revoke-key:<id>`). */
function parseAction(value: string): { readonly name: Action; readonly target: string } | undefined {
  const [name, target = ''] = value.split(':', 2) as [string, string?]
  if (!Object.hasOwn(ACTIONS, name)) return undefined
  const needsTarget = name === 'revoke-key' || name === 'revoke-grant'
  if (needsTarget !== (target !== '')) return undefined
  return { name: name as Action, target }
}

/**
 * The administration pages, for holders of the `admin` role only (others get 403): search accounts by a
 * prefix of a username or address (or an exact id), look at one (status, ways to sign in, sessions, recent
 * events, API keys, connected apps), and disable, enable, sign out every session of it, revoke one of its
 * API keys, disconnect one of its apps, require a password reset (the reset mail goes to its verified
 * address) or delete it. Every change takes the administrator's password (a one-use `administration`
 * step-up, spent at once) and a reason, which the security log keeps.
 */
export function administrationPages(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  options: AdministrationPagesOptions,
): SecureRouter {
  const { administration, service } = options
  const router = security.router()
  const route = {
    auth: required(SESSION_MECHANISM),
    guards: [administratorGuard({ role: ADMINISTRATOR_ROLE })],
  }
  const kit = accountKit(context)
  const form = formBody()

  router.get(ADMINISTRATION_PATH, route, async (request, response) => {
    const query = typeof request.query.q === 'string' ? request.query.q.trim().slice(0, 254) : ''
    const hits =
      query === ''
        ? []
        : [
            ...(await administration.search({ by: 'id', value: query }).catch(() => [])),
            ...(await administration.search({ by: 'prefix', value: query, limit: 50 })),
          ]
    const flash = kit.take(request, response)
    const seen = new Set<string>()
    const rows = hits
      .filter((hit) => !seen.has(hit.account.accountId) && seen.add(hit.account.accountId))
      .map(
        (hit) => html`<tr data-account="${hit.account.accountId}">
          <td data-label="Account"><a href="${ADMINISTRATION_PATH}/${encodeURIComponent(hit.account.accountId)}">${hit.username ?? hit.account.accountId}</a></td>
          <td data-label="Address">${hit.email ?? html`<span class="muted">none</span>`}</td>
          <td data-label="Status"><span class="badge ${hit.account.status === 'active' ? 'active' : 'revoked'}">${hit.account.status}</span></td></tr>`,
      )
    await kit.show(
      request,
      response,
      'Administration',
      html`${flashNotice(flash)}<p class="lead">Find an account by the start of its username or address, or by its id.</p>
        <form method="get" action="${ADMINISTRATION_PATH}" class="inline" role="search">
          <label>Account <input name="q" value="${query}" autocomplete="off" required></label>
          <button type="submit">Search</button></form>
        ${
          query === ''
            ? ''
            : rows.length === 0
              ? html`<p class="muted" data-testid="no-hits">No account matches.</p>`
              : html`<table data-testid="hits"><thead><tr><th>Account</th><th>Address</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`
        }`,
    )
  })

  router.get(`${ADMINISTRATION_PATH}/:accountId`, route, async (request, response) => {
    const accountId = String(request.params.accountId)
    const view = await administration.view(accountId).catch(() => null)
    if (view === null)
      throw new HttpProblem({ status: 404, code: 'administration.not_found', detail: 'No such account' })
    const flash = kit.take(request, response)
    const now = new Date()
    const path = `${ADMINISTRATION_PATH}/${encodeURIComponent(accountId)}`
    // A wrong password is said beside its field (the flash names the field).
    const password = fieldError(flash, 'password')
    const action = (name: string, label: string, style: string) =>
      html`<button type="submit" name="action" value="${name}" class="${style}">${label}</button>`
    await kit.show(
      request,
      response,
      `Account ${view.username ?? accountId}`,
      html`${flashNotice(flash)}
        <dl class="card">
          <dt>Status</dt><dd data-testid="status">${view.account.status}</dd>
          <dt>Account id</dt><dd class="mono">${accountId}</dd>
          <dt>Created</dt><dd>${readableTime(view.account.createdAt, now)}</dd>
          <dt>Ways to sign in</dt><dd>${view.methods.map((method) => method.kind).join(', ') || 'none'}</dd>
          <dt>Addresses</dt><dd>${view.emails.map((email) => email.address).join(', ') || 'none'}</dd>
          <dt>Second factors</dt><dd>${view.factors.totp ? 'TOTP' : 'no TOTP'}, ${view.factors.passkeys} passkey(s)</dd>
          <dt>Sessions</dt><dd data-testid="sessions">${view.sessions.length}</dd>
        </dl>
        <form method="post" action="${path}" class="card">
          <p>Changes need your password again and a reason; both the change and the reason are recorded.</p>
          <label>Reason <input name="reason" maxlength="200" required></label>
          <label>Your password <input type="password" name="password" autocomplete="current-password" required${password.invalid}></label>
          ${password.message}
          <p>${view.account.status === 'active' ? action('disable', 'Disable account', 'danger') : action('enable', 'Enable account', '')}
            ${action('sign-out', 'Sign out every session', 'secondary')}
            ${view.methods.some((method) => method.kind === 'password') ? action('password-reset', 'Require a password reset', 'secondary') : ''}
            ${action('delete', 'Delete account', 'danger')}</p>
          <h2>API keys</h2>
          ${
            view.apiKeys.length === 0
              ? html`<p class="muted">No API keys.</p>`
              : html`<table data-testid="api-keys"><thead><tr><th>Key</th><th>Status</th><th></th></tr></thead><tbody>${view.apiKeys.map(
                  (key) => html`<tr data-key-id="${key.keyId}">
                    <td data-label="Key">${key.label ?? key.keyId} <span class="muted mono">${key.keyId}</span></td>
                    <td data-label="Status">${key.revokedAt === undefined ? 'active' : 'revoked'}</td>
                    <td>${key.revokedAt === undefined ? action(`revoke-key:${key.keyId}`, 'Revoke key', 'secondary') : ''}</td></tr>`,
                )}</tbody></table>`
          }
          <h2>Connected apps</h2>
          ${
            view.grants.length === 0
              ? html`<p class="muted">No connected apps.</p>`
              : html`<table data-testid="grants"><thead><tr><th>App</th><th>Since</th><th></th></tr></thead><tbody>${view.grants.map(
                  (grant) => html`<tr data-grant-id="${grant.grantId}">
                    <td data-label="App">${grant.clientName ?? grant.clientId}</td>
                    <td data-label="Since">${readableTime(grant.createdAt, now)}</td>
                    <td>${action(`revoke-grant:${grant.grantId}`, 'Disconnect app', 'secondary')}</td></tr>`,
                )}</tbody></table>`
          }
        </form>
        ${impersonateForm(accountId, view.account.status === 'active')}
        <h2>Recent events</h2>
        <ol class="events" data-testid="events">${view.recentEvents.map(
          (entry) =>
            html`<li><code>${entry.type}</code> <span class="muted">${readableTime(entry.at, now)}${entry.actorId === null ? '' : html`, by <code>${entry.actorId}</code>`}</span></li>`,
        )}</ol>
        <p><a href="${ADMINISTRATION_PATH}">Back to the search</a></p>`,
    )
  })

  router.post(`${ADMINISTRATION_PATH}/:accountId`, route, form, async (request, response) => {
    const accountId = String(request.params.accountId)
    const path = `${ADMINISTRATION_PATH}/${encodeURIComponent(accountId)}`
    const chosen = parseAction(field(request, 'action'))
    if (chosen === undefined) throw new HttpProblem({ status: 400, code: 'administration.invalid_input' })
    const { name, target } = chosen
    const session = kit.session(request)
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    try {
      const stepUpToken = (
        await service.passwordStepUp({
          session,
          purpose: ADMINISTRATION_STEP_UP_PURPOSE,
          password: field(request, 'password'),
          request: requestInfo(request),
        })
      ).reveal()
      await act(
        administration,
        name,
        {
          administrator: session,
          stepUpToken,
          accountId,
          reason: field(request, 'reason'),
          request: requestInfo(request),
        },
        target,
      )
      kit.done(request, response, name === 'delete' ? ADMINISTRATION_PATH : path, { notice: ACTIONS[name] })
    } catch (error) {
      failed(kit, request, response, error, path)
    }
  })
  return router
}

function act(
  administration: AccountAdministration,
  name: Action,
  change: AdministrativeChange,
  target: string,
) {
  if (name === 'disable') return administration.disable(change)
  if (name === 'enable') return administration.enable(change)
  if (name === 'password-reset') return administration.requirePasswordReset(change)
  if (name === 'delete') return administration.deleteAccount(change)
  if (name === 'revoke-key') return administration.revokeApiKey({ ...change, keyId: target })
  if (name === 'revoke-grant') return administration.revokeGrant({ ...change, grantId: target })
  return administration.signOutEverywhere(change)
}

const WORDS: Readonly<Record<string, string>> = {
  'administration.reason_required': 'Give a reason (at most 200 characters).',
  'administration.self_target': 'You cannot do that to your own account here.',
  'administration.not_found': 'That account, key or app no longer exists.',
  'administration.no_address': 'The account has no verified address to send the reset to.',
  'administration.no_password': 'The account has no password to reset.',
}

function failed(
  kit: ReturnType<typeof accountKit>,
  request: SecuredRequest,
  response: Response,
  error: unknown,
  to: string,
): void {
  const code = (error as { code?: unknown } | null)?.code
  const words = typeof code === 'string' ? WORDS[code] : undefined
  if (words !== undefined) {
    kit.done(request, response, to, { error: words })
    return
  }
  kit.failed(request, response, error, to)
}
