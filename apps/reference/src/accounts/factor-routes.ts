import type { AccountService, AccountSession } from '@portcullis/core/accounts'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { localSessionOf, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { RequestHandler, Response } from 'express'
import QRCode from 'qrcode'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { SIGN_IN_PATH, sendPage, viewerFor } from '../layout/layout.js'
import {
  confirmCodeForm,
  enrollmentPage,
  type PasskeyPlace,
  passkeyElsewhere,
  passkeySection,
  recoveryCodesPage,
  totpSection,
} from './factor-pages.js'
import { field, requestInfo } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import type { SecondFactors } from './second-factors.js'

/** A notice on the account page (and its status). */
export interface AccountNotice {
  readonly status?: number
  readonly message: string
  readonly warning?: boolean
}

export interface FactorRoutesOptions {
  readonly local: LocalAccounts
  readonly service: AccountService
  readonly stepUp: StepUpService
  readonly factors: SecondFactors
  /** Renders the account page again with a notice. */
  readonly showAccount: (request: SecuredRequest, response: Response, notice?: AccountNotice) => Promise<void>
  /** Renders a refusal of a service on the account page (`wrong`: the sentence for a 401). */
  readonly refused: (
    request: SecuredRequest,
    response: Response,
    error: unknown,
    wrong: string,
  ) => Promise<void>
}

const CONFIRM_FIRST: AccountNotice = {
  status: 401,
  message: 'Confirm with your password or a passkey first.',
  warning: true,
}

/** Where the pages send people for passkeys (the RP ID's origin). */
export const passkeyPlaceOf = (factors: SecondFactors): PasskeyPlace | undefined =>
  factors.relyingParty === undefined
    ? undefined
    : { rpId: factors.relyingParty.rpId, origin: factors.relyingParty.origins[0] ?? '' }

/**
 * The step-up credential of `purpose` a passkey step-up left in the purpose's cookie (cleared at once,
 * whatever the answer); empty when there is none.
 */
export function stepUpCookieToken(
  security: Pick<Security, 'stepUp'>,
  request: SecuredRequest,
  response: Response,
  purpose: string,
): string {
  const cookies = security.stepUp.cookies
  const read = cookies?.read(request.headers.cookie, purpose)
  if (cookies === undefined || read === undefined || read.kind === 'absent') return ''
  response.append('Set-Cookie', cookies.clear(purpose))
  return read.kind === 'present' ? read.value : ''
}

/**
 * The account page's passkey and two-step sign-in sections, and whether the account can confirm
 * actions with a passkey. `methods` counts the account's sign-in methods (password, identities, usable
 * passkeys): the last one offers no remove button.
 */
export async function factorSections(
  factors: SecondFactors,
  accountId: string,
  now: Date,
  account: { readonly password: boolean; readonly methods: number },
): Promise<{ readonly html: SafeHtml; readonly passkeyStepUp: boolean }> {
  const { password, methods } = account
  const place = passkeyPlaceOf(factors)
  const [passkeys, totp] = await Promise.all([
    factors.passkeys?.service.list(accountId) ?? [],
    factors.totp.status(accountId),
  ])
  const passkeyStepUp = place !== undefined && passkeys.some((passkey) => passkey.suspendedAt === null)
  return {
    html: html`${passkeySection({ passkeys, place, now, password, methods })}${totpSection(totp, passkeyStepUp, password)}`,
    passkeyStepUp,
  }
}

/**
 * The pages of passkeys and one-time codes on the account page: add (after the `passkey-register` step-up;
 * the script then runs the ceremony against `/auth/passkeys/register`), rename, remove (`passkey-remove`),
 * set up TOTP (`totp-enroll`: a QR code, the key, a first code, the recovery codes once), new recovery
 * codes (`totp-recovery-codes`) and turning it off (`totp-disable`). Each step-up is the password again
 * or a passkey step-up whose credential the script left in the purpose's step-up cookie.
 */
export function factorRoutes(
  router: SecureRouter,
  security: Pick<Security, 'stepUp'>,
  context: ReferenceContext,
  options: FactorRoutesOptions,
  form: RequestHandler,
): void {
  const { local, service, stepUp, factors, showAccount, refused } = options
  const auth = required(SESSION_MECHANISM)
  const place = passkeyPlaceOf(factors)
  const page = async (
    request: SecuredRequest,
    res: Response,
    title: string,
    body: SafeHtml,
    status = 200,
  ) => {
    const viewer = await viewerFor(request.security, context.directory)
    res.setHeader('Cache-Control', 'no-store')
    sendPage(res, { title, area: 'account', viewer, body }, status)
  }
  const sessionOf = (request: SecuredRequest): AccountSession | undefined => localSessionOf(request.security)
  const clientAddress = (request: SecuredRequest) => local.clientAddress(requestInfo(request))

  /** The purpose's step-up token: earned by the password in the form, or the passkey step-up's cookie. */
  const stepUpToken = async (
    request: SecuredRequest,
    res: Response,
    session: AccountSession,
    purpose: string,
  ) => {
    const password = field(request, 'password')
    if (password !== '') {
      const credential = await service.passwordStepUp({
        session,
        purpose,
        password,
        request: requestInfo(request),
      })
      return credential.reveal()
    }
    return stepUpCookieToken(security, request, res, purpose)
  }

  /** Runs `work` once a step-up of `purpose` is consumed; otherwise the account page says why. */
  const guarded = async (
    request: SecuredRequest,
    res: Response,
    purpose: string,
    work: (session: AccountSession) => Promise<void>,
  ) => {
    const session = sessionOf(request)
    if (session === undefined) return res.redirect(303, SIGN_IN_PATH)
    try {
      const consumed = await stepUp.consume({
        token: await stepUpToken(request, res, session, purpose),
        accountId: session.accountId,
        purpose,
        securityEpoch: session.securityEpoch,
        sessionBinding: session.sessionHandle,
      })
      if (consumed.kind !== 'consumed') return await showAccount(request, res, CONFIRM_FIRST)
      await work(session)
    } catch (error) {
      await refused(request, res, error, 'The password is wrong.')
    }
  }

  const passkeys = factors.passkeys
  if (passkeys !== undefined && place !== undefined) {
    // Adding: the step-up credential stays in its cookie for `POST /auth/passkeys/register/options`.
    router.post('/account/passkeys/add', { auth }, form, async (request, res) => {
      const session = sessionOf(request)
      if (session === undefined) return res.redirect(303, SIGN_IN_PATH)
      const cookies = security.stepUp.cookies
      try {
        if (field(request, 'password') !== '') {
          const credential = await service.passwordStepUp({
            session,
            purpose: 'passkey-register',
            password: field(request, 'password'),
            request: requestInfo(request),
          })
          res.append(
            'Set-Cookie',
            cookies?.serialize(credential.purpose, credential.reveal(), credential.expiresAt) ?? [],
          )
        } else if (cookies?.read(request.headers.cookie, 'passkey-register').kind !== 'present') {
          return await showAccount(request, res, CONFIRM_FIRST)
        }
      } catch (error) {
        return await refused(request, res, error, 'The password is wrong.')
      }
      await page(
        request,
        res,
        'Add a passkey',
        html`<p class="lead" data-testid="next-step">Confirmed. Name the passkey, then press <strong>Create the
          passkey</strong> and confirm with your device (fingerprint, face, PIN or security key).</p>
          <p class="muted">Do it within five minutes, in this browser. The confirmation works once: if the time
          runs out or the page is closed, confirm again on <a href="/account">your account page</a>.</p>
          <div class="stack card">
            <label>Name <input name="passkey_name" maxlength="64" value="Passkey" autocomplete="off"></label>
            <div><button type="button" data-passkey-register>Create the passkey</button></div>
          </div>
          ${passkeyElsewhere(place, '/account')}
          <p><a href="/account">Back to your account</a></p>`,
      )
    })

    router.post('/account/passkeys/:credentialId/rename', { auth }, form, async (request, res) => {
      const renamed = await passkeys.service
        .rename({
          accountId: request.security.principal?.id ?? '',
          credentialId: String(request.params.credentialId),
          name: field(request, 'name').trim(),
        })
        .catch((error: unknown) => {
          if ((error as { code?: unknown }).code === 'passkey.invalid_input') return 'invalid' as const
          throw error
        })
      if (renamed === 'invalid')
        return showAccount(request, res, { status: 400, message: 'That name cannot be used.', warning: true })
      // Another account's passkey is no different from none.
      if (!renamed)
        return showAccount(request, res, { status: 404, message: 'No such passkey.', warning: true })
      res.redirect(303, '/account?passkey=renamed')
    })

    router.post('/account/passkeys/:credentialId/remove', { auth }, form, (request, res) =>
      guarded(request, res, 'passkey-remove', async (session) => {
        const removed = await passkeys.service.remove({
          accountId: session.accountId,
          credentialId: String(request.params.credentialId),
        })
        if (!removed)
          return showAccount(request, res, { status: 404, message: 'No such passkey.', warning: true })
        res.redirect(303, '/account?passkey=removed')
      }),
    )
  }

  router.post('/account/totp/enroll', { auth }, form, (request, res) =>
    guarded(request, res, 'totp-enroll', async (session) => {
      const label = (await viewerFor(request.security, context.directory))?.username ?? session.accountId
      const start = await factors.totp.beginEnrollment({ accountId: session.accountId, label })
      // Drawn here, never by a third party: the URI carries the secret.
      const qrSvg = await QRCode.toString(start.revealUri(), {
        type: 'svg',
        errorCorrectionLevel: 'M',
        margin: 2,
      })
      await page(
        request,
        res,
        'Set up two-step sign-in',
        enrollmentPage({ qrSvg, secret: start.revealSecret() }),
      )
    }),
  )

  router.post('/account/totp/confirm', { auth }, form, async (request, res) => {
    const accountId = request.security.principal?.id ?? ''
    try {
      const codes = await factors.totp.confirmEnrollment({
        accountId,
        code: field(request, 'code'),
        clientAddress: clientAddress(request),
      })
      await page(request, res, 'Recovery codes', recoveryCodesPage(codes.reveal(), 'Two-step sign-in is on.'))
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (code === 'totp.invalid_code' || code === 'totp.invalid_input') {
        await page(
          request,
          res,
          'Set up two-step sign-in',
          confirmCodeForm('That code is wrong or expired: enter the one your app shows now.'),
          401,
        )
        return
      }
      await refused(request, res, error, 'That code is wrong.')
    }
  })

  router.post('/account/totp/recovery-codes', { auth }, form, (request, res) =>
    guarded(request, res, 'totp-recovery-codes', async (session) => {
      const codes = await factors.totp.regenerateRecoveryCodes({
        accountId: session.accountId,
        clientAddress: clientAddress(request),
      })
      await page(
        request,
        res,
        'Recovery codes',
        recoveryCodesPage(codes.reveal(), 'New recovery codes: the old ones no longer work.'),
      )
    }),
  )

  router.post('/account/totp/disable', { auth }, form, (request, res) =>
    guarded(request, res, 'totp-disable', async (session) => {
      await factors.totp.disable({ accountId: session.accountId, clientAddress: clientAddress(request) })
      res.redirect(303, '/account?totp=off')
    }),
  )
}
