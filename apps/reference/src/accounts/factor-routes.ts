import type { AccountService, AccountSession } from '@portcullis/core/accounts'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { RequestHandler, Response } from 'express'
import QRCode from 'qrcode'
import type { ReferenceContext } from '../app-context.js'
import { SealedCookie } from '../layout/flash.js'
import { html, type SafeHtml } from '../layout/html.js'
import { SIGN_IN_PATH, viewerFor } from '../layout/layout.js'
import {
  enrollmentPage,
  type PasskeyPlace,
  passkeyElsewhere,
  passkeySection,
  recoveryCodesPage,
  totpSection,
} from './factor-pages.js'
import { field, requestInfo } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import { type AccountKit, CONFIRM_FIRST, confirmPath, flashNotice } from './page-kit.js'
import type { SecondFactors } from './second-factors.js'

export interface FactorRoutesOptions {
  readonly local: LocalAccounts
  readonly service: AccountService
  readonly stepUp: StepUpService
  readonly factors: SecondFactors
  readonly kit: AccountKit
}

/** The enrollment in progress: its key and URI, sealed for the account, until the first code is right. */
interface PendingEnrollment {
  readonly secret: string
  readonly uri: string
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
    html: html`${passkeySection({ passkeys, place, now, password, methods })}${totpSection(totp, password)}`,
    passkeyStepUp,
  }
}

/**
 * The pages of passkeys and one-time codes of the account page, each chosen there and confirmed on its
 * confirmation page: add a passkey (after the `passkey-register` step-up; the script then runs the
 * ceremony against `/auth/passkeys/register`), rename, remove (`passkey-remove`), set up TOTP
 * (`totp-enroll`: a QR code and the key, kept until the first code is right; then the recovery codes,
 * once), new recovery codes (`totp-recovery-codes`) and turning it off (`totp-disable`). Each step-up is
 * the password again or a passkey step-up whose credential the script left in the purpose's cookie.
 * Every form redirects (303) to the page that says what happened.
 */
export function factorRoutes(
  router: SecureRouter,
  security: Pick<Security, 'stepUp'>,
  context: ReferenceContext,
  options: FactorRoutesOptions,
  form: RequestHandler,
): void {
  const { local, service, stepUp, factors, kit } = options
  const auth = required(SESSION_MECHANISM)
  const place = passkeyPlaceOf(factors)
  const clientAddress = (request: SecuredRequest) => local.clientAddress(requestInfo(request))
  const enrollment = new SealedCookie<PendingEnrollment>('portcullis-totp-setup', {
    path: '/account/totp',
    maxAgeSeconds: 900,
    secure: context.publicOrigin.startsWith('https:'),
    key: context.pageCookieKey,
  })

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

  /** Runs `work` once a step-up of `purpose` is consumed; otherwise back to the confirmation, saying why. */
  const guarded = async (
    request: SecuredRequest,
    res: Response,
    purpose: string,
    back: string,
    work: (session: AccountSession) => Promise<void>,
  ) => {
    const session = kit.session(request)
    if (session === undefined) return res.redirect(303, SIGN_IN_PATH)
    try {
      const consumed = await stepUp.consume({
        token: await stepUpToken(request, res, session, purpose),
        accountId: session.accountId,
        purpose,
        securityEpoch: session.securityEpoch,
        sessionBinding: session.sessionHandle,
      })
      if (consumed.kind !== 'consumed')
        return kit.done(request, res, back, { error: CONFIRM_FIRST, field: 'password' })
      await work(session)
    } catch (error) {
      kit.failed(request, res, error, back)
    }
  }

  const passkeys = factors.passkeys
  if (passkeys !== undefined && place !== undefined) {
    // Adding: the step-up credential stays in its cookie for `POST /auth/passkeys/register/options`.
    router.post('/account/passkeys/add', { auth }, form, async (request, res) => {
      const session = kit.session(request)
      if (session === undefined) return res.redirect(303, SIGN_IN_PATH)
      const cookies = security.stepUp.cookies
      const back = confirmPath('passkey-register')
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
          return kit.done(request, res, back, { error: CONFIRM_FIRST, field: 'password' })
        }
      } catch (error) {
        return kit.failed(request, res, error, back)
      }
      kit.done(request, res, '/account/passkeys/new', { notice: 'Confirmed: it is you.' })
    })

    router.get('/account/passkeys/new', { auth }, async (request, res) => {
      const flash = kit.take(request, res)
      const waiting =
        security.stepUp.cookies?.read(request.headers.cookie, 'passkey-register').kind === 'present'
      await kit.show(
        request,
        res,
        'Add a passkey',
        waiting
          ? html`${flashNotice(flash)}<p class="lead" data-testid="next-step">Name the passkey, then press <strong>Create the
              passkey</strong> and confirm with your device (fingerprint, face, PIN or security key).</p>
              <p class="muted">Do it within five minutes, in this browser. The confirmation works once: if the time
              runs out or the page is closed, confirm again.</p>
              <div class="stack card">
                <label>Name <input name="passkey_name" maxlength="64" value="Passkey" autocomplete="off"></label>
                <div class="actions"><button type="button" data-passkey-register>Create the passkey</button> <a href="/account">Cancel</a></div>
              </div>
              ${passkeyElsewhere(place, '/account/passkeys/new')}`
          : html`<p class="notice warning">There is no confirmation waiting (it was used, or five minutes passed).</p>
              <p><a class="button" href="${confirmPath('passkey-register')}">Confirm again</a> <a href="/account">Back to your account</a></p>`,
      )
    })

    router.post('/account/passkeys/:credentialId/rename', { auth }, form, async (request, res) => {
      const renamed = await passkeys.service
        .rename({
          accountId: kit.accountId(request),
          credentialId: String(request.params.credentialId),
          name: field(request, 'name').trim(),
        })
        .catch((error: unknown) => {
          if ((error as { code?: unknown }).code === 'passkey.invalid_input') return 'invalid' as const
          throw error
        })
      // Another account's passkey is no different from none.
      kit.done(
        request,
        res,
        '/account',
        renamed === 'invalid'
          ? { error: 'That name cannot be used.' }
          : renamed
            ? { notice: 'Passkey renamed.' }
            : { error: 'No such passkey.' },
      )
    })

    router.post('/account/passkeys/:credentialId/remove', { auth }, form, (request, res) => {
      const credentialId = String(request.params.credentialId)
      return guarded(
        request,
        res,
        'passkey-remove',
        confirmPath('passkey-remove', { id: credentialId }),
        async (session) => {
          const removed = await passkeys.service.remove({ accountId: session.accountId, credentialId })
          kit.done(
            request,
            res,
            '/account',
            removed ? { notice: 'Passkey removed: it no longer signs in.' } : { error: 'No such passkey.' },
          )
        },
      )
    })
  }

  router.post('/account/totp/enroll', { auth }, form, (request, res) =>
    guarded(request, res, 'totp-enroll', confirmPath('totp-enroll'), async (session) => {
      const label = (await viewerFor(request.security, context.directory))?.username ?? session.accountId
      const start = await factors.totp.beginEnrollment({ accountId: session.accountId, label })
      enrollment.set(res, session.accountId, { secret: start.revealSecret(), uri: start.revealUri() })
      kit.done(request, res, '/account/totp/setup', { notice: 'Confirmed: it is you.' })
    }),
  )

  // The enrollment in progress: the QR code and the key stay, however many codes were wrong.
  router.get('/account/totp/setup', { auth }, async (request, res) => {
    const accountId = kit.accountId(request)
    const pending = enrollment.read(request, accountId)
    const flash = kit.take(request, res)
    const status = await factors.totp.status(accountId)
    if (pending === undefined || status.enabled) {
      await kit.show(
        request,
        res,
        'Set up two-step sign-in',
        status.enabled
          ? html`<p class="notice">Two-step sign-in is on.</p><p><a href="/account">Back to your account</a></p>`
          : html`<p class="notice warning">No setup is in progress (it was finished, or fifteen minutes passed).</p>
              <p><a class="button" href="${confirmPath('totp-enroll')}">Start again</a> <a href="/account">Back to your account</a></p>`,
      )
      return
    }
    // Drawn here, never by a third party: the URI carries the secret.
    const qrSvg = await QRCode.toString(pending.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
    await kit.show(
      request,
      res,
      'Set up two-step sign-in',
      enrollmentPage({ qrSvg, secret: pending.secret, flash }),
    )
  })

  router.post('/account/totp/confirm', { auth }, form, async (request, res) => {
    const accountId = kit.accountId(request)
    try {
      const codes = await factors.totp.confirmEnrollment({
        accountId,
        code: field(request, 'code'),
        clientAddress: clientAddress(request),
      })
      enrollment.clear(res)
      kit.done(request, res, '/account/totp/codes', {
        notice: 'Two-step sign-in is on.',
        reveal: codes.reveal(),
        revealKind: 'recovery-codes',
      })
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (code === 'totp.invalid_code' || code === 'totp.invalid_input')
        return kit.done(request, res, '/account/totp/setup', {
          error: 'That code is wrong or expired: enter the one your app shows now.',
          field: 'code',
        })
      kit.failed(request, res, error, '/account/totp/setup', { field: 'code' })
    }
  })

  // The recovery codes, shown once (a reload shows them no more).
  router.get('/account/totp/codes', { auth }, async (request, res) => {
    const flash = kit.take(request, res)
    await kit.show(
      request,
      res,
      'Recovery codes',
      recoveryCodesPage(flash?.revealKind === 'recovery-codes' ? flash.reveal : undefined, flash?.notice),
    )
  })

  router.post('/account/totp/recovery-codes', { auth }, form, (request, res) =>
    guarded(request, res, 'totp-recovery-codes', confirmPath('totp-recovery-codes'), async (session) => {
      const codes = await factors.totp.regenerateRecoveryCodes({
        accountId: session.accountId,
        clientAddress: clientAddress(request),
      })
      kit.done(request, res, '/account/totp/codes', {
        notice: 'New recovery codes: the old ones no longer work.',
        reveal: codes.reveal(),
        revealKind: 'recovery-codes',
      })
    }),
  )

  router.post('/account/totp/disable', { auth }, form, (request, res) =>
    guarded(request, res, 'totp-disable', confirmPath('totp-disable'), async (session) => {
      await factors.totp.disable({ accountId: session.accountId, clientAddress: clientAddress(request) })
      kit.done(request, res, '/account', {
        notice: 'Two-step sign-in is off; its recovery codes no longer work.',
      })
    }),
  )
}
