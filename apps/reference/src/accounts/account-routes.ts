import { createHmac } from 'node:crypto'
import { requiresStepUp } from '@portcullis/core/authorization'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { accounts as oauthAccounts } from '@portcullis/core/oauth'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { localSessionOf, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { PostgresLocalAccountStore } from '@portcullis/postgres'
import type { Response } from 'express'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { SIGN_IN_PATH, sendPage, viewerOf } from '../layout/layout.js'
import { field, formBody, refusal, requestInfo } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import { DEMO_PROVIDER, RECOVERY_CODES_PURPOSE } from './oauth.js'
import { signInRoutes } from './sign-in-routes.js'

/** The step-up purpose the OAuth link route consumes. */
const LINK_PURPOSE = 'oauth-link'
/** The step-up purpose the OAuth unlink route consumes. */
const UNLINK_PURPOSE = 'oauth-unlink'

export interface AccountRoutesOptions {
  readonly local: LocalAccounts
  readonly store: PostgresLocalAccountStore
  readonly stepUp: StepUpService
  /** Key of the demo recovery codes (derived, never stored). */
  readonly recoverySeed: Uint8Array
  /** The OAuth account directory: a new local account is registered there (one login method). */
  readonly oauthDirectory: Pick<oauthAccounts.OAuthAccountDirectory, 'registerAccount'>
}

const recoveryCodes = (seed: Uint8Array, accountId: string) =>
  [0, 1, 2, 3, 4, 5].map((index) =>
    createHmac('sha256', seed)
      .update(`portcullis-reference-recovery|${accountId}|${index}`)
      .digest('hex')
      .slice(0, 10)
      .replace(/(.{5})/, '$1-'),
  )

interface LinkRow {
  provider_account_id: string
  provider: string
  issuer: string
  subject: string
  linked_at: Date
}

/**
 * The pages of local accounts, for browsers without JavaScript: sign-up, sign-in (password or the demo
 * IdP), sign-out, and the account page (linked identities, sessions, password change), plus a sensitive
 * action gated by `requiresStepUp`. The forms post here; these thin handlers call the `LocalAccounts`
 * service, which the JSON routes under `/auth/` call too.
 */
export function accountRoutes(
  security: Pick<Security, 'router' | 'stepUp'>,
  context: ReferenceContext,
  options: AccountRoutesOptions,
): SecureRouter {
  const { local, store } = options
  const router = security.router()
  const form = formBody()
  const auth = required(SESSION_MECHANISM)
  const idp = context.idp !== undefined
  const { setSession, clearSession } = signInRoutes(router, context, options, form)

  const page = (request: SecuredRequest, title: string) => ({
    title,
    area: 'account' as const,
    viewer: viewerOf(request.security, context.directory),
  })

  const accountPage = async (
    request: SecuredRequest,
    response: Response,
    notice?: { status?: number; message: string; warning?: boolean },
  ) => {
    const accountId = request.security.principal?.id ?? ''
    const current = local.credentialsOf(request.security.evidence).sessionHandle
    const [record, sessions, links] = await Promise.all([
      store.findAccount({ accountId }),
      local.listSessions(accountId, current),
      context.postgres.pool.query<LinkRow>(
        'select provider_account_id, provider, issuer, subject, linked_at from portcullis_oauth_links where account_id = $1 order by provider',
        [accountId],
      ),
    ])
    const demoLink = links.rows.find((link) => link.provider === DEMO_PROVIDER)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        ...page(request, 'Your account'),
        body: html`${notice ? html`<p class="notice${notice.warning ? ' warning' : ''}" role="status">${notice.message}</p>` : ''}
        <div class="card"><dl class="facts">
          <dt>Username</dt><dd data-testid="username">${record?.username ?? ''}</dd>
          <dt>Account id</dt><dd><code>${accountId}</code></dd>
          <dt>Password changed</dt><dd>${record?.passwordChangedAt.toISOString() ?? ''}</dd>
        </dl></div>

        <h2>Linked identities</h2>
        <table data-testid="links"><thead><tr><th>Provider</th><th>Issuer</th><th>Subject</th><th>Linked</th><th></th></tr></thead><tbody>
          ${links.rows.map(
            (
              link,
            ) => html`<tr><td>${link.provider}</td><td><code>${link.issuer}</code></td><td><code>${link.subject}</code></td><td>${new Date(link.linked_at).toISOString()}</td>
            <td><form method="post" action="/account/unlink/${link.provider}/${link.provider_account_id}" class="inline" aria-label="Unlink ${link.provider}">
              <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
              <button type="submit" class="secondary">Confirm password and unlink</button></form></td></tr>`,
          )}
        </tbody></table>
        ${links.rows.length === 0 ? html`<p class="muted">No identity provider is linked.</p>` : ''}
        ${
          idp && demoLink === undefined
            ? html`<form method="post" action="/account/link/${DEMO_PROVIDER}" class="stack card" aria-label="Link the demo IdP">
              <p>Link an identity of the demo OpenID Provider. Linking needs a one-use step-up credential: confirm
                your password first.</p>
              <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
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

        <h2>Active sessions</h2>
        <table data-testid="sessions"><thead><tr><th>Started</th><th>Last seen</th><th>Browser</th><th></th></tr></thead><tbody>
          ${sessions.map(
            (
              session,
            ) => html`<tr data-session="${session.id}"${session.current ? html` data-current="true"` : ''}>
              <td>${session.createdAt.toISOString()}</td><td>${session.lastSeenAt.toISOString()}</td>
              <td>${session.userAgent ?? ''}${session.current ? html` <span class="badge">this browser</span>` : ''}</td>
              <td><form method="post" action="/account/sessions/${session.id}/revoke" class="inline">
                <button type="submit" class="secondary">Revoke</button></form></td></tr>`,
          )}
        </tbody></table>
        <form method="post" action="/account/sessions/revoke-all" class="inline">
          <button type="submit" class="secondary">Sign out everywhere</button></form>

        <h2>Change password</h2>
        <form method="post" action="/account/password" class="stack card" aria-label="Change password">
          <label>Current password <input name="current_password" type="password" autocomplete="current-password" required></label>
          <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="8" required></label>
          <div><button type="submit">Change password</button></div>
          <p class="muted">Every other session of the account ends; this browser gets a new session.</p>
        </form>`,
      },
      notice?.status,
    )
  }

  router.get('/account', { auth }, async (request, response) => {
    const message =
      request.query.changed !== undefined
        ? 'Password changed. Every other session was signed out.'
        : request.query.revoked !== undefined
          ? 'Session revoked.'
          : undefined
    await accountPage(request, response, message === undefined ? undefined : { message })
  })

  router.post('/account/password', { auth }, form, async (request, response) => {
    try {
      const changed = await local.changePassword({
        accountId: request.security.principal?.id ?? '',
        body: {
          currentPassword: field(request, 'current_password'),
          newPassword: field(request, 'new_password'),
        },
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
      if (changed.session !== undefined) setSession(response, changed.session)
      response.redirect(303, '/account?changed=1')
    } catch (error) {
      const { status, message } = refusal(error)
      await accountPage(request, response, {
        status,
        message: status === 401 ? 'The current password is wrong.' : message,
        warning: true,
      })
    }
  })

  router.post('/account/sessions/revoke-all', { auth }, async (request, response) => {
    await local.signOutEverywhere(
      request.security.principal?.id ?? '',
      'sign_out_everywhere',
      local.clientAddress(requestInfo(request)),
    )
    clearSession(response)
    response.redirect(303, SIGN_IN_PATH)
  })

  router.post('/account/sessions/:handle/revoke', { auth }, async (request, response) => {
    const handle = String(request.params.handle)
    const accountId = request.security.principal?.id ?? ''
    const revoked = await local.revokeSession(accountId, handle, requestInfo(request))
    if (revoked && local.credentialsOf(request.security.evidence).sessionHandle === handle) {
      clearSession(response)
      response.redirect(303, SIGN_IN_PATH)
      return
    }
    response.redirect(303, revoked ? '/account?revoked=1' : '/account')
  })

  /**
   * The password again before a sensitive action (linking, unlinking): `local.confirmPassword` counts the
   * attempt against the sign-in limits (per account and per client address) before any hashing. A refusal
   * renders the account page again (401 wrong password, 429 with `Retry-After`, 503 hashing busy).
   */
  const passwordConfirmed = async (request: SecuredRequest, response: Response): Promise<boolean> => {
    try {
      await local.confirmPassword({
        accountId: request.security.principal?.id ?? '',
        password: field(request, 'password'),
        request: requestInfo(request),
      })
      return true
    } catch (error) {
      const { status, message } = refusal(error)
      const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds
      if (typeof retryAfter === 'number') response.setHeader('Retry-After', String(retryAfter))
      await accountPage(request, response, {
        status,
        message: status === 401 ? 'The password is wrong.' : message,
        warning: true,
      })
      return false
    }
  }

  /** A one-use credential for `purpose`, bound to this session and epoch, in its `SameSite=Strict` cookie. */
  const issueStepUp = async (
    response: Response,
    accountId: string,
    session: { readonly securityEpoch: number; readonly sessionHandle: string },
    purpose: string,
  ) => {
    const credential = await options.stepUp.issue({
      accountId,
      purpose,
      securityEpoch: session.securityEpoch,
      sessionBinding: session.sessionHandle,
      ttlSeconds: 300,
    })
    const cookies = security.stepUp.cookies
    if (cookies !== undefined) {
      response.append('Set-Cookie', cookies.serialize(purpose, credential.reveal(), credential.expiresAt))
    }
  }

  // Linking: the password again, then a one-use `oauth-link` credential bound to this session (its step-up
  // cookie), then the OAuth link route, which consumes it and sends the browser to the demo IdP.
  router.post(`/account/link/${DEMO_PROVIDER}`, { auth }, form, async (request, response) => {
    const accountId = request.security.principal?.id ?? ''
    const session = localSessionOf(request.security)
    if (!(await passwordConfirmed(request, response))) return
    if (session === undefined) {
      await accountPage(request, response, { status: 401, message: 'The password is wrong.', warning: true })
      return
    }
    await issueStepUp(response, accountId, session, LINK_PURPOSE)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      ...page(request, 'Link the demo IdP'),
      body: html`<p class="lead">Password confirmed. A one-use credential for <code>${LINK_PURPOSE}</code> is in a
        <code>SameSite=Strict</code> cookie for the next five minutes.</p>
        <form method="post" action="/auth/oauth/${DEMO_PROVIDER}/link" class="card">
          <input type="hidden" name="return_to" value="/account">
          <button type="submit">Continue to the demo IdP</button>
        </form>`,
    })
  })

  // Unlinking: the password again (rate limited), then a one-use `oauth-unlink` credential bound to this
  // session, then the OAuth unlink route (`POST /auth/oauth/{provider}/links/{id}/unlink`) consumes it.
  router.post('/account/unlink/:provider/:providerAccountId', { auth }, form, async (request, response) => {
    const accountId = request.security.principal?.id ?? ''
    const provider = String(request.params.provider)
    const providerAccountId = String(request.params.providerAccountId)
    const { rows } = await context.postgres.pool.query(
      'select 1 from portcullis_oauth_links where account_id = $1 and provider = $2 and provider_account_id = $3',
      [accountId, provider, providerAccountId],
    )
    if (rows.length === 0) {
      await accountPage(request, response, {
        status: 404,
        message: 'No such linked identity.',
        warning: true,
      })
      return
    }
    const session = localSessionOf(request.security)
    if (!(await passwordConfirmed(request, response))) return
    if (session === undefined) {
      await accountPage(request, response, { status: 401, message: 'The password is wrong.', warning: true })
      return
    }
    await issueStepUp(response, accountId, session, UNLINK_PURPOSE)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      ...page(request, `Unlink ${provider}`),
      body: html`<p class="lead">Password confirmed. A one-use credential for <code>${UNLINK_PURPOSE}</code> is in a
        <code>SameSite=Strict</code> cookie for the next five minutes.</p>
        <form method="post" action="/auth/oauth/${provider}/links/${providerAccountId}/unlink" class="card">
          <p>The identity of <code>${provider}</code> will no longer sign in to this account.</p>
          <button type="submit">Unlink</button>
        </form>
        <p><a href="/account">Back to your account</a></p>`,
    })
  })

  const recoveryIntro = (linked: boolean): SafeHtml => html`<p class="lead">Guarded by
    <code>requiresStepUp('${RECOVERY_CODES_PURPOSE}')</code>: the codes are shown only with a one-use credential
    that a fresh login at the demo IdP issued (<code>max_age=0</code>, so its <code>auth_time</code> must be
    now). The credential is bound to this session and this purpose, and works once.</p>
    ${
      linked
        ? html`<div class="grid">
          <form method="post" action="/auth/oauth/${DEMO_PROVIDER}/reauthenticate/${RECOVERY_CODES_PURPOSE}" class="card">
            <input type="hidden" name="return_to" value="/account/recovery-codes">
            <p>1. Confirm who you are at the demo IdP.</p>
            <button type="submit">Confirm at the demo IdP</button>
          </form>
          <form method="post" action="/account/recovery-codes" class="card">
            <p>2. Then show the codes (once per confirmation).</p>
            <button type="submit">Show recovery codes</button>
          </form></div>`
        : html`<p class="notice warning">Link the demo IdP on <a href="/account">your account page</a> first.</p>`
    }`

  router.get('/account/recovery-codes', { auth }, async (request, response) => {
    const { rows } = await context.postgres.pool.query(
      'select 1 from portcullis_oauth_links where account_id = $1 and provider = $2',
      [request.security.principal?.id ?? '', DEMO_PROVIDER],
    )
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      ...page(request, 'Recovery codes'),
      body: recoveryIntro(idp && rows.length > 0),
    })
  })

  router.post(
    '/account/recovery-codes',
    { auth, guards: [requiresStepUp(RECOVERY_CODES_PURPOSE)] },
    (request, response) => {
      response.setHeader('Cache-Control', 'no-store')
      sendPage(response, {
        ...page(request, 'Recovery codes'),
        body: html`<p class="notice">Confirmed. Keep these somewhere safe; this page will not show them again
          without a new confirmation.</p>
          <ul class="plain" data-testid="recovery-codes">${recoveryCodes(
            options.recoverySeed,
            request.security.principal?.id ?? '',
          ).map((code) => html`<li><code>${code}</code></li>`)}</ul>`,
      })
    },
  )

  return router
}
