import type { PasskeyCredential } from '@portcullis/core/passkeys'
import type { TotpStatus } from '@portcullis/core/totp'
import type { Flash } from '../layout/flash.js'
import { html, raw, type SafeHtml } from '../layout/html.js'
import { copyButton, PASSKEYS_SCRIPT_PATH } from '../layout/layout.js'
import { readableTime } from '../layout/readable.js'
import { confirmPath, fieldError, flashNotice } from './page-kit.js'

// The markup of passkeys and one-time codes: the account page's sections, the enrollment page, the
// recovery codes shown once, and the second step of a password sign-in.

/** Where passkeys work, for the pages: the RP ID and the origin to use when the page is elsewhere. */
export interface PasskeyPlace {
  readonly rpId: string
  readonly origin: string
}

/** Shown (by the script) when the page is not on the RP ID's host, e.g. `127.0.0.1` instead of `localhost`. */
export function passkeyElsewhere(place: PasskeyPlace, path: string): SafeHtml {
  return html`<p class="notice warning" data-rp-id="${place.rpId}" data-passkey-elsewhere hidden>Passkeys belong to
    <code>${place.rpId}</code>: open <a href="${place.origin}${path}">${place.origin}${path}</a> to use them.</p>
    <p class="notice error" role="alert" data-passkey-status hidden></p>
    <script src="${PASSKEYS_SCRIPT_PATH}" defer></script>`
}

/**
 * The passkeys of the account page: each with rename and remove, and adding one. A usable passkey that is
 * the account's last sign-in method (`methods` counts them all) has no remove button, as the last
 * password has none: removing it would be refused.
 */
export function passkeySection(input: {
  readonly passkeys: readonly PasskeyCredential[]
  readonly place: PasskeyPlace | undefined
  readonly now: Date
  readonly password: boolean
  readonly methods: number
}): SafeHtml {
  const { place, now, password } = input
  const removable = (passkey: PasskeyCredential) => passkey.suspendedAt !== null || input.methods > 1
  if (place === undefined) {
    return html`<h2>Passkeys</h2><p class="muted" data-testid="passkeys-off">Passkeys need a host name over https, or
      <code>http://localhost</code>: start the app with <code>PORTCULLIS_PUBLIC_URL=http://localhost:PORT</code>
      (or an https origin) and open it there.</p>`
  }
  const has = input.passkeys.length > 0
  const canConfirm = password || input.passkeys.some((passkey) => passkey.suspendedAt === null)
  return html`<h2>Passkeys</h2>
    <p class="muted">A passkey signs in without a password (the sign-in page offers it, also in the username
      field's suggestions) and can confirm sensitive actions.</p>
    <table data-testid="passkeys"><thead><tr><th>Name</th><th>Added</th><th>Last used</th><th></th></tr></thead><tbody>
      ${input.passkeys.map(
        (passkey) => html`<tr data-passkey="${passkey.credentialId}">
          <td><form method="post" action="/account/passkeys/${passkey.credentialId}/rename" class="row" aria-label="Rename ${passkey.name}">
            <input name="name" value="${passkey.name}" maxlength="64" required aria-label="Name">
            <button type="submit" class="secondary">Rename</button></form>${
              passkey.suspendedAt === null ? '' : html` <span class="badge revoked">suspended</span>`
            }</td>
          <td data-label="Added">${readableTime(passkey.createdAt, now)}</td>
          <td data-label="Last used">${passkey.lastUsedAt === null ? html`<span class="muted">never</span>` : readableTime(passkey.lastUsedAt, now)}</td>
          <td>${
            removable(passkey)
              ? html`<a class="button danger" href="${confirmPath('passkey-remove', { id: passkey.credentialId })}">Remove</a>`
              : html`<span class="muted" data-testid="last-method">your only way to sign in</span>`
          }</td></tr>`,
      )}
    </tbody></table>
    ${has ? '' : html`<p class="muted">No passkey yet.</p>`}
    ${canConfirm ? html`<p><a class="button secondary" href="${confirmPath('passkey-register')}">Add a passkey</a></p>` : ''}`
}

/** Two-step sign-in: off (set it up), or on with the recovery codes left, new codes and turning it off. */
export function totpSection(status: TotpStatus, password: boolean): SafeHtml {
  if (!status.enabled && !password) {
    return html`<h2>Two-step sign-in</h2>
      <p class="muted">A second step after the password: this account signs in without a password.</p>`
  }
  if (!status.enabled) {
    return html`<h2>Two-step sign-in</h2>
      <p class="muted">After your password, a six-digit code from an authenticator app on your phone, with ten
        one-use recovery codes for when the phone is gone.</p>
      <p><a class="button secondary" href="${confirmPath('totp-enroll')}">Set up two-step sign-in</a></p>`
  }
  return html`<h2>Two-step sign-in</h2>
    <p data-testid="totp-status">On: signing in with your password asks for a code. <strong>${status.recoveryCodes}</strong>
      unused recovery code${status.recoveryCodes === 1 ? '' : 's'} left.</p>
    <p class="actions"><a class="button secondary" href="${confirmPath('totp-recovery-codes')}">New recovery codes</a>
      <a class="button danger" href="${confirmPath('totp-disable')}">Turn off</a></p>`
}

const codeField = html`<label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code"
  pattern="[0-9 ]{6,7}" maxlength="7" required></label>`

/**
 * The enrollment: the QR code of the otpauth URI (inline SVG, made here), the key to type, and the first
 * code, with the error of a wrong one beside the field (the QR code and the key stay until it is right).
 */
export function enrollmentPage(input: {
  readonly qrSvg: string
  readonly secret: string
  readonly flash?: Flash | undefined
}) {
  const error = fieldError(input.flash, 'code')
  return html`${flashNotice(input.flash)}
    <p class="lead">Scan the code with an authenticator app on your phone (or type the key), then enter the six
      digits it shows.</p>
    <div class="grid">
      <div class="card qr" data-testid="totp-qr" role="img" aria-label="QR code for your authenticator app">${raw(input.qrSvg)}</div>
      <div class="card"><p>Can't scan? Type this key in the app:</p>
        <div class="copyable"><code class="secret" id="totp-secret" data-testid="totp-secret">${input.secret}</code>${copyButton('totp-secret', 'Copy the key')}</div>
        <p class="muted">The app then shows a new six-digit code every 30 seconds. Keep this key private: it is
          what your codes are made from.</p></div>
    </div>
    <form method="post" action="/account/totp/confirm" class="stack card" aria-label="Confirm the code">
      <label>Code from the app <input name="code" inputmode="numeric" autocomplete="one-time-code"
        pattern="[0-9 ]{6,7}" maxlength="7" required autofocus${error.invalid}></label>
      ${error.message}
      <div class="actions"><button type="submit">Turn on two-step sign-in</button> <a href="/account">Cancel</a></div></form>
    <details class="developer"><summary>Details for developers</summary>
      <p>TOTP (RFC 6238): SHA-1, six digits, a 30-second step; the key is base32.</p></details>`
}

/** Recovery codes, shown once. */
export function recoveryCodesPage(codes: readonly string[] | undefined, lead: string | undefined): SafeHtml {
  if (codes === undefined) {
    return html`<p class="notice">These recovery codes were shown once and are not shown again. If you did not
      keep them, make new ones on <a href="/account">your account page</a>.</p>`
  }
  return html`<p class="notice success" role="status" data-testid="flash">${lead ?? ''}</p>
    <p>Keep these ten recovery codes somewhere safe. Each signs in once in place of a code from your phone;
      this page will not show them again.</p>
    <ul class="plain" id="recovery-codes" data-testid="totp-recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
    <p class="actions">${copyButton('recovery-codes', 'Copy the codes')} <a class="button" href="/account">Back to your account</a></p>`
}

/** The second step of a password sign-in: a code, or a recovery code instead. */
export function secondFactorPage(input: {
  readonly pendingToken: string
  readonly csrfToken: string
  readonly returnTo: string
  readonly message?: string
}): SafeHtml {
  const hidden = html`<input type="hidden" name="pending_token" value="${input.pendingToken}">
    <input type="hidden" name="csrf_token" value="${input.csrfToken}">
    <input type="hidden" name="return_to" value="${input.returnTo}">`
  return html`${input.message ? html`<p class="notice warning" role="alert">${input.message}</p>` : ''}
    <p class="lead">Password accepted. This account has two-step sign-in: enter the code of your authenticator app.</p>
    <div class="grid">
      <form method="post" action="/sign-in/second-factor" class="stack card" aria-label="Sign in with a code">
        ${hidden}${codeField}<div><button type="submit">Continue</button></div></form>
      <form method="post" action="/sign-in/second-factor" class="stack card" aria-label="Sign in with a recovery code">
        ${hidden}<label>Recovery code <input name="recovery_code" autocomplete="off" maxlength="20" required></label>
        <div><button type="submit" class="secondary">Use a recovery code</button></div>
        <p class="muted">Each recovery code works once.</p></form>
    </div>`
}
