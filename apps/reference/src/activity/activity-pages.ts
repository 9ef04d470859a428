import { clearSessionCookie, type LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { recentActivity, type SecurityLog, SecurityLogError } from '@portcullis/core/security-log'
import { HttpProblem, type SecureRouter, type Security } from '@portcullis/express'
import { deviceName, sessionBodies, signOutOtherSessions } from '@portcullis/http/activity'
import { describeUserAgent } from '@portcullis/http/user-agents'
import { requestInfo } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit, flashNotice } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import {
  END_IMPERSONATION_PATH,
  IMPERSONATION_SIGN_OUT_OTHERS_PATH,
} from '../impersonation/impersonation-banner.js'
import { html } from '../layout/html.js'
import { SIGN_IN_PATH } from '../layout/layout.js'
import { readableTime } from '../layout/readable.js'
import { activitySentence } from './activity-words.js'

export const ACTIVITY_PATH = '/account/activity'
export const SESSIONS_PATH = '/account/sessions'
const PAGE_SIZE = 20

export interface ActivityPagesOptions {
  readonly local: LocalAccounts
  /** The durable security log the app's events are written to. */
  readonly securityLog: Pick<SecurityLog, 'listForAccount'>
}

/**
 * The "Recent activity" page (the account's own entries of the security log, newest first, 20 a page)
 * and the "Sessions" page (every signed-in device by name, this one marked, last seen and since when;
 * sign out one, or every other). Forms post and redirect (303) to the page that says what happened.
 */
export function activityPages(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  options: ActivityPagesOptions,
): SecureRouter {
  const { local, securityLog } = options
  const router = security.router()
  const auth = { auth: required(SESSION_MECHANISM) }
  const kit = accountKit(context)

  router.get(ACTIVITY_PATH, auth, async (request, response) => {
    const accountId = kit.accountId(request)
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined
    let page: Awaited<ReturnType<typeof recentActivity>>
    try {
      page = await recentActivity(securityLog, { accountId, limit: PAGE_SIZE, cursor })
    } catch (error) {
      if (error instanceof SecurityLogError)
        throw new HttpProblem({ status: 400, code: error.code, detail: 'That page link is not valid' })
      throw error
    }
    const now = new Date()
    const items = page.items.map(
      (
        item,
      ) => html`<li data-activity="${item.kind}"><p><span class="sentence">${activitySentence(item)}</span>
        <span class="muted">${readableTime(item.at, now)}${item.kind === 'signed_in' || item.kind === 'sign_in_failed' ? html`, ${deviceName(item.device)}` : ''}${item.address === null ? '' : html`, from address <span class="mono">${item.address}</span>`}</span></p>
        <details class="developer"><summary>Details for developers</summary>
          <p><code>${item.type}</code> at <code>${item.at.toISOString()}</code>${item.actorId === null ? '' : html`, by <code>${item.actorId}</code>`}</p></details></li>`,
    )
    await kit.show(
      request,
      response,
      'Recent activity',
      html`<p class="lead">Where and when your account was used: sign-ins and failed attempts, changes to your
        password, addresses and ways to sign in, connected apps, and what an administrator did. Only you see it.
        Something you do not recognise? <a href="${SESSIONS_PATH}">Sign out the devices</a> and change your password.</p>
        ${
          items.length === 0
            ? html`<p class="muted" data-testid="no-activity">Nothing yet.</p>`
            : html`<ol class="events card" data-testid="activity">${items}</ol>`
        }
        ${page.nextCursor === null ? '' : html`<p><a class="button secondary" href="${ACTIVITY_PATH}?cursor=${encodeURIComponent(page.nextCursor)}">Older activity</a></p>`}`,
    )
  })

  router.get(SESSIONS_PATH, auth, async (request, response) => {
    const accountId = kit.accountId(request)
    const flash = kit.take(request, response)
    const current = local.credentialsOf(request.security.evidence).sessionHandle
    const sessions = sessionBodies(await local.listSessions(accountId, current), describeUserAgent)
    const impersonating = request.security.principal?.impersonator !== undefined
    const now = new Date()
    const rows = sessions.map(
      (session) => html`<tr data-session="${session.id}"${session.current ? html` data-current="true"` : ''}>
        <td data-label="Device"><span data-testid="device">${session.deviceName}</span>${session.current ? html` <span class="badge active">this device</span>` : ''}</td>
        <td data-label="Last seen">${readableTime(new Date(session.lastSeenAt), now)}</td>
        <td data-label="Signed in">${readableTime(new Date(session.createdAt), now)}</td>
        <td data-label="Address">${session.clientAddress === null ? html`<span class="muted">unknown</span>` : html`<span class="mono">${session.clientAddress}</span>`}</td>
        <td><form method="post" action="${SESSIONS_PATH}/${session.id}/sign-out" class="inline">
          <button type="submit" class="secondary">${session.current ? 'Sign out' : 'Sign out this device'}</button></form></td></tr>`,
    )
    await kit.show(
      request,
      response,
      'Sessions',
      html`${flashNotice(flash)}
        <p class="lead">Every device signed in to your account. "Last seen" moves at most once a minute.</p>
        <table data-testid="sessions"><thead><tr><th>Device</th><th>Last seen</th><th>Signed in</th><th>Address</th><th></th></tr></thead>
          <tbody>${rows}</tbody></table>
        ${
          sessions.length > 1
            ? html`<form method="post" action="${impersonating ? IMPERSONATION_SIGN_OUT_OTHERS_PATH : `${SESSIONS_PATH}/sign-out-others`}" class="inline">
          <button type="submit" class="danger">Sign out everywhere else</button></form>
          <p class="muted">Ends every other session, and every app token made by a sign-in; this device stays signed in.</p>`
            : ''
        }
        <p><a href="${ACTIVITY_PATH}">Recent activity</a></p>`,
    )
  })

  router.post(`${SESSIONS_PATH}/sign-out-others`, auth, async (request, response) => {
    // From an impersonation, the impersonation pages sign out and hand the administrator's session back.
    if (request.security.principal?.impersonator !== undefined) {
      return response.redirect(307, IMPERSONATION_SIGN_OUT_OTHERS_PATH)
    }
    const renewed = await signOutOtherSessions(local, {
      accountId: kit.accountId(request),
      credentials: local.credentialsOf(request.security.evidence),
      request: requestInfo(request),
    })
    if (renewed.session !== undefined) response.append('Set-Cookie', renewed.session.setCookie)
    kit.done(request, response, SESSIONS_PATH, { notice: 'Every other device is signed out.' })
  })

  router.post(`${SESSIONS_PATH}/:id/sign-out`, auth, async (request, response) => {
    const id = String(request.params.id)
    const accountId = kit.accountId(request)
    // Signing out this device from an impersonation is ending it: the administrator's session comes back.
    const current = local.credentialsOf(request.security.evidence).sessionHandle === id
    if (current && request.security.principal?.impersonator !== undefined) {
      return response.redirect(307, END_IMPERSONATION_PATH)
    }
    if (!(await local.revokeSession(accountId, id, requestInfo(request)))) {
      throw new HttpProblem({ status: 404, code: 'activity.session_not_found', detail: 'No such session' })
    }
    if (local.credentialsOf(request.security.evidence).sessionHandle === id) {
      if (local.sessionCookie !== undefined)
        response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
      response.redirect(303, SIGN_IN_PATH)
      return
    }
    kit.done(request, response, SESSIONS_PATH, { notice: 'That device is signed out.' })
  })
  return router
}
