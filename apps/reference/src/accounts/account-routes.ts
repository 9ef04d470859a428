import type { AccountEmail } from '@portcullis/core/account-email'
import type { AccountService } from '@portcullis/core/accounts'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import { addressRoutes } from '../account-email/address-pages.js'
import { emailChangeRoutes } from '../account-email/email-change-pages.js'
import { emailSection, notificationRoutes } from '../account-email/notification-pages.js'
import type { ReferenceContext } from '../app-context.js'
import { html } from '../layout/html.js'
import { SIGN_IN_PATH } from '../layout/layout.js'
import { accountPage } from './account-page.js'
import { type ConfirmWays, confirmAction, confirmPage } from './confirm-pages.js'
import { factorRoutes, factorSections, passkeyPlaceOf, stepUpCookieToken } from './factor-routes.js'
import { field, formBody, requestInfo } from './forms.js'
import { linkRoutes } from './link-routes.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import { DEMO_PROVIDER, DEMO_REAUTHENTICATION } from './oauth.js'
import { accountKit, confirmPath, fieldError, flashNotice } from './page-kit.js'
import type { SecondFactors } from './second-factors.js'
import { signInRoutes } from './sign-in-routes.js'

export interface AccountRoutesOptions {
  readonly local: LocalAccounts
  /** The account operations over the one account store (methods, password step-up, deletion). */
  readonly service: AccountService
  /** Key material of the demo (unused by the pages since their notices are sealed per process). */
  readonly recoverySeed?: Uint8Array
  /** Consumes the step-up credentials of the passkey and TOTP pages. */
  readonly stepUp: StepUpService
  /** Passkeys and the TOTP second factor. */
  readonly factors: SecondFactors
  /** The mail flows: the account's addresses and notification settings on its page. */
  readonly accountEmail?: AccountEmail
  /** Sends the mail a page just wrote to the outbox now, instead of at the next poll. */
  readonly wake?: () => void
}

/**
 * The pages of accounts, for browsers without JavaScript: sign-up, sign-in (password or the demo IdP),
 * sign-out, and the account page (every sign-in method with add and remove, sessions, password change,
 * deletion). A guarded action is chosen on the account page and confirmed on its own page
 * (`/account/confirm/{action}`), where the password is asked, next to the action, and a wrong one is
 * said beside the field. Every form posts, then redirects (303) to the page that says what happened.
 * These thin handlers call `LocalAccounts` and `AccountService`, which the JSON routes under `/auth/`
 * call too.
 */
export function accountRoutes(
  security: Pick<Security, 'router' | 'stepUp' | 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: AccountRoutesOptions,
): SecureRouter {
  const { local, service } = options
  const router = security.router()
  const form = formBody()
  const auth = required(SESSION_MECHANISM)
  const idp = context.idp !== undefined
  const kit = accountKit(context)
  const { setSession, clearSession } = signInRoutes(router, security, context, options, form)
  const place = passkeyPlaceOf(options.factors)

  const methodsOf = async (accountId: string) => (await service.overview(accountId))?.methods ?? []

  router.get('/account', { auth }, async (request, response) => {
    const accountId = kit.accountId(request)
    const flash = kit.take(request, response)
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
    const mail = options.accountEmail
    const email =
      mail === undefined
        ? undefined
        : emailSection({
            addresses: await mail.parts.accounts.listEmailAddresses(accountId),
            optOuts: (await mail.notificationSettings(accountId)).optOuts,
          })
    const linked = methods.some((method) => method.kind === 'identity' && method.provider === DEMO_PROVIDER)
    // A link or an unlink ends at the provider's routes, which return here: say what came of it.
    const outcome =
      flash?.pending === 'link' && linked
        ? { notice: 'The demo identity provider is linked: it signs in to this account now.' }
        : flash?.pending === 'unlink' && !linked
          ? { notice: 'The demo identity provider is unlinked: it no longer signs in to this account.' }
          : flash?.pending === undefined
            ? (flash ??
              // The passkey script lands here after the ceremony (a fetch, then this page).
              (request.query.passkey === 'added'
                ? { notice: 'Passkey added: it signs in to this account now.' }
                : undefined))
            : undefined
    await kit.show(
      request,
      response,
      'Your account',
      accountPage({
        accountId,
        overview,
        sessions,
        idp,
        notice: flashNotice(outcome),
        factors: factors.html,
        ...(email === undefined ? {} : { email }),
      }),
    )
  })

  /** How this account can confirm `purpose` (its password, a passkey, or a fresh login at the demo IdP). */
  const waysOf = async (request: SecuredRequest, purpose: string): Promise<ConfirmWays> => {
    const accountId = kit.accountId(request)
    const methods = await methodsOf(accountId)
    const passwordMethod = methods.find((method) => method.kind === 'password')
    const password = passwordMethod !== undefined
    const passkeys =
      place === undefined ? [] : ((await options.factors.passkeys?.service.list(accountId)) ?? [])
    const linked = methods.some((method) => method.kind === 'identity' && method.provider === DEMO_PROVIDER)
    const reauthenticates = Object.hasOwn(DEMO_REAUTHENTICATION, purpose)
    return {
      password: password && purpose !== 'password-add',
      username: passwordMethod?.kind === 'password' ? passwordMethod.username : undefined,
      passkey: purpose !== 'password-add' && passkeys.some((passkey) => passkey.suspendedAt === null),
      place,
      idp: idp && linked && !password && reauthenticates,
      idpConfirmed:
        security.stepUp.cookies?.read(request.headers.cookie, purpose).kind === 'present' &&
        idp &&
        linked &&
        reauthenticates,
    }
  }

  // The confirmation step of a guarded action: what happens, and the password (or another way) for it.
  router.get('/account/confirm/:action', { auth }, async (request, response) => {
    const key = String(request.params.action)
    const provider = typeof request.query.provider === 'string' ? request.query.provider : ''
    const id = typeof request.query.id === 'string' ? request.query.id : ''
    const action = confirmAction(key, { provider, id })
    if (action === undefined)
      throw new HttpProblem({ status: 404, code: 'route.not_found', detail: 'Not found' })
    const accountId = kit.accountId(request)
    if (key === 'oauth-unlink') {
      const methods = await methodsOf(accountId)
      if (
        !methods.some((m) => m.kind === 'identity' && m.provider === provider && m.providerAccountId === id)
      )
        throw new HttpProblem({ status: 404, code: 'oauth.link.not_found', detail: 'Not found' })
    }
    if (key === 'passkey-remove') {
      const passkeys = (await options.factors.passkeys?.service.list(accountId)) ?? []
      if (!passkeys.some((passkey) => passkey.credentialId === id))
        throw new HttpProblem({ status: 404, code: 'passkey.not_found', detail: 'Not found' })
    }
    const flash = kit.take(request, response)
    const path = confirmPath(
      key,
      key === 'oauth-unlink' ? { provider, id } : key === 'passkey-remove' ? { id } : {},
    )
    const usernameError = fieldError(flash, 'username')
    const newPasswordError = fieldError(flash, 'new_password')
    const fields =
      key === 'password-add'
        ? html`<label>Username <input name="username" autocomplete="username" required${usernameError.invalid}></label>
          ${usernameError.message}
          <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="8" required${newPasswordError.invalid}></label>
          ${newPasswordError.message}`
        : undefined
    await kit.show(
      request,
      response,
      action.title,
      confirmPage({
        action,
        ways: await waysOf(request, action.purpose),
        flash,
        path,
        ...(fields === undefined ? {} : { fields }),
      }),
    )
  })

  // Changing the password: its own page, the error beside the field it concerns.
  router.get('/account/password', { auth }, async (request, response) => {
    const flash = kit.take(request, response)
    const current = fieldError(flash, 'current_password')
    const next = fieldError(flash, 'new_password')
    await kit.show(
      request,
      response,
      'Change the password',
      html`${flashNotice(flash)}
        <form method="post" action="/account/password" class="stack card" aria-label="Change password">
          <label>Current password <input name="current_password" type="password" autocomplete="current-password" required${current.invalid}></label>
          ${current.message}
          <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="8" required${next.invalid}></label>
          ${next.message}
          <div class="actions"><button type="submit">Change password</button> <a href="/account">Cancel</a></div>
          <p class="muted">Your other sessions end; this browser stays signed in.</p>
        </form>`,
    )
  })

  router.post('/account/password', { auth }, form, async (request, response) => {
    try {
      const changed = await local.changePassword({
        accountId: kit.accountId(request),
        body: {
          currentPassword: field(request, 'current_password'),
          newPassword: field(request, 'new_password'),
        },
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
      if (changed.session !== undefined) setSession(response, changed.session)
      kit.done(request, response, '/account', {
        notice: 'Password changed. Your other sessions were signed out.',
      })
    } catch (error) {
      const code = (error as { code?: unknown }).code
      const to = '/account/password'
      if (code === 'local.invalid_password' || code === 'local.password_screened')
        return kit.done(request, response, to, {
          error: String((error as { detail?: unknown }).detail ?? 'That new password cannot be used.'),
          field: 'new_password',
        })
      kit.failed(request, response, error, to, {
        wrong: 'The current password is wrong.',
        field: 'current_password',
      })
    }
  })

  // Removing the password: the password again earns the `password-remove` credential, spent at once.
  router.post('/account/password/remove', { auth }, form, async (request, response) => {
    const session = kit.session(request)
    if (session === undefined) return response.redirect(303, SIGN_IN_PATH)
    try {
      const stepUpToken =
        field(request, 'password') === ''
          ? stepUpCookieToken(security, request, response, 'password-remove')
          : (
              await service.passwordStepUp({
                session,
                purpose: 'password-remove',
                password: field(request, 'password'),
                request: requestInfo(request),
              })
            ).reveal()
      const renewed = await service.removePassword({
        session,
        stepUpToken,
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
      if (renewed.session !== undefined) setSession(response, renewed.session)
      kit.done(request, response, '/account', {
        notice: 'Password removed. Your other sessions were signed out.',
      })
    } catch (error) {
      kit.failed(request, response, error, confirmPath('password-remove'))
    }
  })

  // Adding a password to an account made by the demo IdP: the `password-add` credential of a fresh IdP
  // login (its step-up cookie), then the username and password.
  router.post('/account/password/add', { auth }, form, async (request, response) => {
    const session = kit.session(request)
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
      kit.done(request, response, '/account', { notice: 'Password added: it signs in to this account now.' })
    } catch (error) {
      const code = (error as { code?: unknown }).code
      const to = confirmPath('password-add')
      if (code === 'step-up.required')
        return kit.done(request, response, to, { error: 'Confirm at the demo IdP first (step 1).' })
      if (code === 'local.username_taken' || code === 'local.invalid_username')
        return kit.done(request, response, to, {
          error: `${code === 'local.username_taken' ? 'That username is taken.' : 'That username cannot be used.'} Confirm again, then choose another.`,
          field: 'username',
        })
      if (code === 'local.invalid_password' || code === 'local.password_screened')
        return kit.done(request, response, to, {
          error: `${String((error as { detail?: unknown }).detail ?? 'That password cannot be used.')} Confirm again, then choose another.`,
          field: 'new_password',
        })
      kit.failed(request, response, error, to)
    }
  })

  // Deleting the account with the password (the `delete-account` credential, spent at once) or after a
  // passkey step-up (the credential it left in the purpose's cookie).
  router.post('/account/delete', { auth }, form, async (request, response) => {
    const session = kit.session(request)
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
      await service.deleteAccount({ session, stepUpToken, request: requestInfo(request) })
      clearSession(response)
      response.redirect(303, '/?deleted=1')
    } catch (error) {
      kit.failed(request, response, error, confirmPath('delete-account'))
    }
  })

  router.post('/account/sessions/revoke-all', { auth }, async (request, response) => {
    const info = requestInfo(request)
    await local.signOutEverywhere(
      kit.accountId(request),
      'sign_out_everywhere',
      local.clientAddress(info),
      info.impersonator,
    )
    clearSession(response)
    response.redirect(303, SIGN_IN_PATH)
  })

  router.post('/account/sessions/:handle/revoke', { auth }, async (request, response) => {
    const handle = String(request.params.handle)
    const revoked = await local.revokeSession(kit.accountId(request), handle, requestInfo(request))
    if (revoked && local.credentialsOf(request.security.evidence).sessionHandle === handle) {
      clearSession(response)
      response.redirect(303, SIGN_IN_PATH)
      return
    }
    kit.done(
      request,
      response,
      '/account',
      revoked ? { notice: 'Session revoked: that browser is signed out.' } : { error: 'No such session.' },
    )
  })

  linkRoutes(router, security, { service, kit, methodsOf }, form)
  factorRoutes(router, security, context, { ...options, kit }, form)
  if (options.accountEmail !== undefined) {
    notificationRoutes(router, options.accountEmail, kit, form)
    const mailPages = {
      accountEmail: options.accountEmail,
      service,
      local,
      kit,
      setSession,
      ...(options.wake === undefined ? {} : { wake: options.wake }),
    }
    emailChangeRoutes(router, security, context, mailPages, form)
    addressRoutes(router, security, context, mailPages, form)
  }
  return router
}
