import type { AccountService, AccountStore } from '@portcullis/core/accounts'
import { requiresCapability } from '@portcullis/core/authorization'
import { IMPERSONATION_STEP_UP_PURPOSE, type Impersonations } from '@portcullis/core/impersonation'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { Response } from 'express'
import { field, formBody, requestInfo } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit, fieldError, flashNotice } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { html } from '../layout/html.js'
import { ACCOUNT_PATH, SIGN_IN_PATH } from '../layout/layout.js'
import { IMPERSONATE_PATH } from './impersonate-form.js'
import { END_IMPERSONATION_PATH, IMPERSONATION_SIGN_OUT_OTHERS_PATH } from './impersonation-banner.js'
import { IMPERSONATION_TTL_SECONDS } from './impersonation-wiring.js'

export interface ImpersonationPagesOptions {
  readonly impersonations: Impersonations
  readonly local: LocalAccounts
  /** The administrator's password step-up (`impersonation-start`, one use, spent at once). */
  readonly service: AccountService
  /** Finds the account a username names. */
  readonly accounts: Pick<AccountStore, 'findPassword'>
}

/** The refusals of a start, in words (the others are the account kit's). */
const WORDS: Readonly<Record<string, string>> = {
  'impersonation.target_is_administrator': 'That account is an administrator: it cannot be impersonated.',
  'impersonation.target_not_found': 'No active account has that username or id.',
  'impersonation.invalid_input':
    'Name another account than yours, and give a reason (at most 500 characters, on one line).',
  'impersonation.nested': 'End the impersonation you are in first.',
  'impersonation.unavailable': 'A dependency did not answer. Try again in a moment.',
}

/**
 * The impersonation pages: `GET /admin/impersonate` (holders of `accounts.impersonate` only; others
 * 403), whose form takes the account, a reason and the administrator's password (a one-use
 * `impersonation-start` step-up, spent at once), and starts acting as the account in this browser; and
 * the End button of the banner every page of an impersonation shows, which hands the administrator's
 * own session back. A cross-site form is refused by the session's CSRF check before either runs.
 */
export function impersonationPages(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  options: ImpersonationPagesOptions,
): SecureRouter {
  const { impersonations, local, service, accounts } = options
  const router = security.router()
  const auth = required(SESSION_MECHANISM)
  const route = { auth, guards: [requiresCapability(impersonations.capability)] }
  const kit = accountKit(context)
  const form = formBody()

  router.get(IMPERSONATE_PATH, route, async (request, response) => {
    const flash = kit.take(request, response)
    const account = typeof request.query.account === 'string' ? request.query.account.slice(0, 255) : ''
    const password = fieldError(flash, 'password')
    await kit.show(
      request,
      response,
      'Impersonate an account',
      html`${flashNotice(flash)}
        <p class="lead">See the site as a person sees it, for at most ${IMPERSONATION_TTL_SECONDS / 60} minutes.
          You cannot change their password, addresses or factors, nor delete the account, and every page
          shows that you are acting on their behalf. The start, the end and the reason are recorded.</p>
        <form method="post" action="${IMPERSONATE_PATH}" class="stack card" aria-label="Impersonate">
          <label>Account (username or id) <input name="account" value="${account}" autocomplete="off" required></label>
          <label>Reason <input name="reason" maxlength="500" required></label>
          <label>Your password <input type="password" name="password" autocomplete="current-password" required${password.invalid}></label>
          ${password.message}
          <div class="actions"><button type="submit">Impersonate</button></div>
        </form>`,
    )
  })

  router.post(IMPERSONATE_PATH, route, form, async (request, response) => {
    const session = kit.session(request)
    const sessionId = local.csrf.sessionIdFrom(request.headers.cookie)
    if (session === undefined || sessionId === undefined) return response.redirect(303, SIGN_IN_PATH)
    const back = IMPERSONATE_PATH
    try {
      const named = field(request, 'account').trim()
      const record = named === '' ? null : await accounts.findPassword({ username: named.toLowerCase() })
      const stepUpToken = (
        await service.passwordStepUp({
          session,
          purpose: IMPERSONATION_STEP_UP_PURPOSE,
          password: field(request, 'password'),
          request: requestInfo(request),
        })
      ).reveal()
      const started = await impersonations.start({
        administrator: { ...session, sessionId },
        snapshot: request.security.snapshot,
        impersonator: request.security.principal?.impersonator,
        accountId: record?.accountId ?? named,
        reason: field(request, 'reason'),
        stepUpToken,
        request: requestInfo(request),
      })
      for (const cookie of started.setCookies) response.append('Set-Cookie', cookie)
      response.redirect(303, ACCOUNT_PATH)
    } catch (error) {
      failed(kit, request, response, error, back)
    }
  })

  // No capability here: the request is the impersonated account's (its own grants), ending its session.
  router.post(END_IMPERSONATION_PATH, { auth }, form, async (request, response) => {
    const ended = await impersonations.end({
      impersonator: request.security.principal?.impersonator,
      sessionHandle: kit.session(request)?.sessionHandle,
      cookieHeader: request.headers.cookie,
      request: requestInfo(request),
    })
    for (const cookie of ended.setCookies) response.append('Set-Cookie', cookie)
    response.redirect(303, IMPERSONATE_PATH)
  })

  // "Sign out everywhere else" of an impersonation: the impersonation ends first (the administrator's
  // own session comes back, as with End), then every session of the account, the administrator named
  // in each event. The administrator lands where End takes them, told what happened.
  router.post(IMPERSONATION_SIGN_OUT_OTHERS_PATH, { auth }, async (request, response) => {
    const impersonator = request.security.principal?.impersonator
    const info = requestInfo(request)
    let ended: Awaited<ReturnType<typeof impersonations.end>>
    try {
      ended = await impersonations.end({
        impersonator,
        sessionHandle: kit.session(request)?.sessionHandle,
        cookieHeader: request.headers.cookie,
        request: info,
      })
    } catch (error) {
      return kit.failed(request, response, error, ACCOUNT_PATH)
    }
    await local.signOutEverywhere(
      ended.accountId,
      'sign_out_everywhere',
      local.clientAddress(info),
      impersonator,
    )
    for (const cookie of ended.setCookies) response.append('Set-Cookie', cookie)
    kit.flash.set(response, ended.administratorId, {
      notice:
        'Every session of the account is signed out, and the impersonation ended: you are back in your own session.',
    })
    response.redirect(303, IMPERSONATE_PATH)
  })
  return router
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
