import { createHmac } from 'node:crypto'
import type { AccountService, AccountSession } from '@portcullis/core/accounts'
import { requiresStepUp } from '@portcullis/core/authorization'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { localSessionOf, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { Response } from 'express'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { SIGN_IN_PATH, sendPage, viewerFor } from '../layout/layout.js'
import { accountPage } from './account-page.js'
import { factorRoutes, factorSections, stepUpCookieToken } from './factor-routes.js'
import { field, formBody, refusal, requestInfo, retryHint } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import { DEMO_PROVIDER, RECOVERY_CODES_PURPOSE } from './oauth.js'
import type { SecondFactors } from './second-factors.js'
import { signInRoutes } from './sign-in-routes.js'

/** The step-up purpose the OAuth link route consumes. */
const LINK_PURPOSE = 'oauth-link'
/** The step-up purpose the OAuth unlink route consumes. */
const UNLINK_PURPOSE = 'oauth-unlink'

export interface AccountRoutesOptions {
  readonly local: LocalAccounts
  /** The account operations over the one account store (methods, password step-up, deletion). */
  readonly service: AccountService
  /** Key of the demo recovery codes (derived, never stored). */
  readonly recoverySeed: Uint8Array
  /** Consumes the step-up credentials of the passkey and TOTP pages. */
  readonly stepUp: StepUpService
  /** Passkeys and the TOTP second factor. */
  readonly factors: SecondFactors
}

const recoveryCodes = (seed: Uint8Array, accountId: string) =>
  [0, 1, 2, 3, 4, 5].map((index) =>
    createHmac('sha256', seed)
      .update(`portcullis-reference-recovery|${accountId}|${index}`)
      .digest('hex')
      .slice(0, 10)
      .replace(/(.{5})/, '$1-'),
  )

/**
 * The pages of accounts, for browsers without JavaScript: sign-up, sign-in (password or the demo IdP),
 * sign-out, and the account page (every sign-in method with add and remove, sessions, password change,
 * deletion), plus a sensitive action gated by `requiresStepUp`. The forms post here; these thin handlers
 * call `LocalAccounts` and `AccountService`, which the JSON routes under `/auth/` call too. Nothing here
 * reads a Portcullis table: the sign-in methods come from the account store.
 */
export function accountRoutes(
  security: Pick<Security, 'router' | 'stepUp'>,
  context: ReferenceContext,
  options: AccountRoutesOptions,
): SecureRouter {
  const { local, service } = options
  const router = security.router()
  const form = formBody()
  const auth = required(SESSION_MECHANISM)
  const idp = context.idp !== undefined
  const { setSession, clearSession } = signInRoutes(router, context, options, form)
  const messages: Readonly<Record<string, string>> = {
    'passkey=added': 'Passkey added: it signs in to this account now.',
    'passkey=renamed': 'Passkey renamed.',
    'passkey=removed': 'Passkey removed.',
    'totp=off': 'Two-step sign-in is off; its recovery codes no longer work.',
  }

  const page = async (request: SecuredRequest, title: string) => ({
    title,
    area: 'account' as const,
    viewer: await viewerFor(request.security, context.directory),
  })
  const sessionOf = (request: SecuredRequest): AccountSession | undefined => localSessionOf(request.security)

  const showAccount = async (
    request: SecuredRequest,
    response: Response,
    notice?: { status?: number; message: string; warning?: boolean },
  ) => {
    const accountId = request.security.principal?.id ?? ''
    const current = local.credentialsOf(request.security.evidence).sessionHandle
    const [overview, sessions] = await Promise.all([
      service.overview(accountId),
      local.listSessions(accountId, current),
    ])
    const methods = overview?.methods ?? []
    const password = methods.some((method) => method.kind === 'password')
    const factors = await factorSections(options.factors, accountId, new Date(), {
      password,
      methods: methods.length,
    })
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        ...(await page(request, 'Your account')),
        body: accountPage({
          accountId,
          overview,
          sessions,
          idp,
          notice,
          factors: factors.html,
          passkeyStepUp: factors.passkeyStepUp,
        }),
      },
      notice?.status,
    )
  }

  /** A refusal rendered on the account page again (401 wrong password, 409 last method, 429, 503). */
  const refused = async (request: SecuredRequest, response: Response, error: unknown, wrong: string) => {
    const code = (error as { code?: unknown }).code
    if (code === 'account.final_method') {
      await showAccount(request, response, {
        status: 409,
        message: 'That is the last way to sign in: add another one first.',
        warning: true,
      })
      return
    }
    const { status, message } = refusal(error)
    retryHint(response, error)
    await showAccount(request, response, { status, message: status === 401 ? wrong : message, warning: true })
  }

  router.get('/account', { auth }, async (request, response) => {
    const query = request.query
    const message =
      query.changed !== undefined
        ? 'Password changed. Every other session was signed out.'
        : query.revoked !== undefined
          ? 'Session revoked.'
          : query.removed !== undefined
            ? 'Password removed. Every other session was signed out.'
            : query.added !== undefined
              ? 'Password added: it signs in to this account now.'
              : Object.entries(messages).find(([key]) => {
                  const [name, value] = key.split('=')
                  return query[name ?? ''] === value
                })?.[1]
    await showAccount(request, response, message === undefined ? undefined : { message })
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
      await refused(request, response, error, 'The current password is wrong.')
    }
  })

  // Removing the password: the password again earns the `password-remove` credential, spent at once.
  router.post('/account/password/remove', { auth }, form, async (request, response) => {
    const session = sessionOf(request)
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    try {
      const credential = await service.passwordStepUp({
        session,
        purpose: 'password-remove',
        password: field(request, 'password'),
        request: requestInfo(request),
      })
      const renewed = await service.removePassword({
        session,
        stepUpToken: credential.reveal(),
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
      if (renewed.session !== undefined) setSession(response, renewed.session)
      response.redirect(303, '/account?removed=1')
    } catch (error) {
      await refused(request, response, error, 'The password is wrong.')
    }
  })

  // Adding a password to an account made by the demo IdP: the `password-add` credential of a fresh IdP
  // login (its step-up cookie), then the username and password.
  router.post('/account/password/add', { auth }, form, async (request, response) => {
    const session = sessionOf(request)
    const cookies = security.stepUp.cookies
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    const read = cookies?.read(request.headers.cookie, 'password-add')
    if (cookies !== undefined && read?.kind !== 'absent')
      response.append('Set-Cookie', cookies.clear('password-add'))
    try {
      await service.addPassword({
        session,
        stepUpToken: read?.kind === 'present' ? read.value : '',
        username: field(request, 'username'),
        password: field(request, 'new_password'),
        request: requestInfo(request),
      })
      response.redirect(303, '/account?added=1')
    } catch (error) {
      if ((error as { code?: unknown }).code === 'step-up.required') {
        await showAccount(request, response, {
          status: 401,
          message: 'Confirm at the demo IdP first (step 1).',
          warning: true,
        })
        return
      }
      await refused(request, response, error, 'Confirm at the demo IdP first (step 1).')
    }
  })

  // Deleting the account with the password (the `delete-account` credential, spent at once) or after a
  // passkey step-up (the credential it left in the purpose's cookie).
  router.post('/account/delete', { auth }, form, async (request, response) => {
    const session = sessionOf(request)
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    try {
      const stepUpToken =
        field(request, 'password') === ''
          ? stepUpCookieToken(security, request, response, 'delete-account')
          : (
              await service.passwordStepUp({
                session,
                purpose: 'delete-account',
                password: field(request, 'password'),
                request: requestInfo(request),
              })
            ).reveal()
      await service.deleteAccount({
        session,
        stepUpToken,
        request: requestInfo(request),
      })
      clearSession(response)
      response.redirect(303, '/?deleted=1')
    } catch (error) {
      await refused(request, response, error, 'The password is wrong.')
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
   * The password again before linking or unlinking: a one-use credential for `purpose` bound to this
   * session and epoch, counted against the sign-in limits before any hashing, in its `SameSite=Strict`
   * cookie for the OAuth route that consumes it. False (the page shown again) when refused.
   */
  const stepUpCookie = async (request: SecuredRequest, response: Response, purpose: string) => {
    const session = sessionOf(request)
    if (session === undefined) {
      response.redirect(303, SIGN_IN_PATH)
      return false
    }
    try {
      const credential = await service.passwordStepUp({
        session,
        purpose,
        password: field(request, 'password'),
        request: requestInfo(request),
      })
      const cookies = security.stepUp.cookies
      if (cookies !== undefined) {
        response.append('Set-Cookie', cookies.serialize(purpose, credential.reveal(), credential.expiresAt))
      }
      return true
    } catch (error) {
      await refused(request, response, error, 'The password is wrong.')
      return false
    }
  }

  // Linking: the password again, then the OAuth link route, which consumes the credential and sends the
  // browser to the demo IdP.
  router.post(`/account/link/${DEMO_PROVIDER}`, { auth }, form, async (request, response) => {
    if (!(await stepUpCookie(request, response, LINK_PURPOSE))) return
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      ...(await page(request, 'Link the demo IdP')),
      body: html`<p class="lead">Password confirmed. Continue to the demo IdP within five minutes, in this browser;
        the confirmation works once.</p>
        <form method="post" action="/auth/oauth/${DEMO_PROVIDER}/link" class="card">
          <input type="hidden" name="return_to" value="/account">
          <button type="submit">Continue to the demo IdP</button>
        </form>`,
    })
  })

  // Unlinking: the password again, then the OAuth unlink route (`POST /auth/oauth/{provider}/links/{id}/unlink`).
  router.post('/account/unlink/:provider/:providerAccountId', { auth }, form, async (request, response) => {
    const accountId = request.security.principal?.id ?? ''
    const provider = String(request.params.provider)
    const providerAccountId = String(request.params.providerAccountId)
    const methods = (await service.overview(accountId))?.methods ?? []
    const linked = methods.some(
      (method) =>
        method.kind === 'identity' &&
        method.provider === provider &&
        method.providerAccountId === providerAccountId,
    )
    if (!linked) {
      await showAccount(request, response, {
        status: 404,
        message: 'No such linked identity.',
        warning: true,
      })
      return
    }
    if (!(await stepUpCookie(request, response, UNLINK_PURPOSE))) return
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      ...(await page(request, `Unlink ${provider}`)),
      body: html`<p class="lead">Password confirmed. Unlink within five minutes, in this browser; the
        confirmation works once.</p>
        <form method="post" action="/auth/oauth/${provider}/links/${providerAccountId}/unlink" class="card">
          <p>The identity of <code>${provider}</code> will no longer sign in to this account.</p>
          <button type="submit">Unlink</button>
        </form>
        <p><a href="/account">Back to your account</a></p>`,
    })
  })

  factorRoutes(router, security, context, { ...options, showAccount, refused }, form)

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
    const methods = (await service.overview(request.security.principal?.id ?? ''))?.methods ?? []
    const linked = methods.some((method) => method.kind === 'identity' && method.provider === DEMO_PROVIDER)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      ...(await page(request, 'Recovery codes')),
      body: recoveryIntro(idp && linked),
    })
  })

  router.post(
    '/account/recovery-codes',
    { auth, guards: [requiresStepUp(RECOVERY_CODES_PURPOSE)] },
    async (request, response) => {
      response.setHeader('Cache-Control', 'no-store')
      sendPage(response, {
        ...(await page(request, 'Recovery codes')),
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
