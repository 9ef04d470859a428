import type { PasskeyCredential } from '@portcullis/core/passkeys'
import type { TotpStatus } from '@portcullis/core/totp'
import { html, raw, type SafeHtml } from '../layout/html.js'
import { PASSKEYS_SCRIPT_PATH } from '../layout/layout.js'
import { readableTime } from '../layout/readable.js'

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

const passwordField = html`<label>Password <input name="password" type="password" autocomplete="current-password" required></label>`

/**
 * A guarded action: the password again (when the account has one), or (when it has a passkey) a passkey
 * step-up of `purpose` whose credential the script leaves in the purpose's step-up cookie before it
 * submits the form.
 */
export function confirmForm(input: {
  readonly action: string
  readonly purpose: string
  readonly label: string
  readonly passkey: boolean
  /** The account has a password (default true). */
  readonly password?: boolean
  readonly danger?: boolean
}): SafeHtml {
  const style = input.danger ? 'danger' : 'secondary'
  const password = input.password !== false
  return html`<form method="post" action="${input.action}" class="stack card${input.danger ? ' danger' : ''}" aria-label="${input.label}">
    ${password ? passwordField : ''}
    <div>${password ? html`<button type="submit" class="${style}">Confirm password and ${input.label.toLowerCase()}</button>` : ''}
    ${
      input.passkey
        ? html` <button type="button" class="${style}" data-passkey-step-up="${input.purpose}">Confirm with a passkey and ${input.label.toLowerCase()}</button>`
        : ''
    }</div></form>`
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
  return html`<h2>Passkeys</h2>
    <p class="muted">A passkey signs in without a password (the sign-in page offers it, also in the username
      field's suggestions) and confirms sensitive actions. Adding or removing one needs a confirmation first.</p>
    <table data-testid="passkeys"><thead><tr><th>Name</th><th>Added</th><th>Last used</th><th></th></tr></thead><tbody>
      ${input.passkeys.map(
        (passkey) => html`<tr data-passkey="${passkey.credentialId}">
          <td><form method="post" action="/account/passkeys/${passkey.credentialId}/rename" class="inline" aria-label="Rename ${passkey.name}">
            <input name="name" value="${passkey.name}" maxlength="64" required aria-label="Name">
            <button type="submit" class="secondary">Rename</button></form>${
              passkey.suspendedAt === null ? '' : html` <span class="badge revoked">suspended</span>`
            }</td>
          <td>${readableTime(passkey.createdAt, now)}</td>
          <td>${passkey.lastUsedAt === null ? html`<span class="muted">never</span>` : readableTime(passkey.lastUsedAt, now)}</td>
          <td>${
            removable(passkey)
              ? confirmForm({
                  action: `/account/passkeys/${passkey.credentialId}/remove`,
                  purpose: 'passkey-remove',
                  label: 'Remove',
                  passkey: true,
                  password,
                })
              : html`<span class="muted" data-testid="last-method">the last way to sign in</span>`
          }</td></tr>`,
      )}
    </tbody></table>
    ${has ? '' : html`<p class="muted">No passkey yet.</p>`}
    ${confirmForm({ action: '/account/passkeys/add', purpose: 'passkey-register', label: 'Add a passkey', passkey: has, password })}
    ${passkeyElsewhere(place, '/account')}`
}

/** Two-step sign-in: off (set it up), or on with the recovery codes left, regenerate and turn off. */
export function totpSection(status: TotpStatus, passkey: boolean, password: boolean): SafeHtml {
  if (!status.enabled && !password) {
    return html`<h2>Two-step sign-in</h2>
      <p class="muted">A second step after the password: this account signs in without one.</p>`
  }
  if (!status.enabled) {
    return html`<h2>Two-step sign-in</h2>
      <p class="muted">An authenticator app's six-digit code after the password (TOTP, RFC 6238), with ten
        one-use recovery codes for when the phone is gone.</p>
      ${confirmForm({ action: '/account/totp/enroll', purpose: 'totp-enroll', label: 'Set up', passkey, password })}`
  }
  return html`<h2>Two-step sign-in</h2>
    <p data-testid="totp-status">On: a password sign-in asks for a code. <strong>${status.recoveryCodes}</strong>
      unused recovery code${status.recoveryCodes === 1 ? '' : 's'} left.</p>
    <div class="grid">
      ${confirmForm({ action: '/account/totp/recovery-codes', purpose: 'totp-recovery-codes', label: 'New recovery codes', passkey, password })}
      ${confirmForm({ action: '/account/totp/disable', purpose: 'totp-disable', label: 'Turn off', passkey, password, danger: true })}
    </div>`
}

const codeField = html`<label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code"
  pattern="[0-9 ]{6,7}" maxlength="7" required></label>`

/** The enrollment: the QR code of the otpauth URI (inline SVG, made here), the secret to type, a first code. */
export function enrollmentPage(input: {
  readonly qrSvg: string
  readonly secret: string
  readonly message?: string
}) {
  return html`${input.message ? html`<p class="notice warning" role="alert">${input.message}</p>` : ''}
    <p class="lead">Scan the code with an authenticator app, or type the key. Then enter the six digits it shows.</p>
    <div class="grid">
      <div class="card qr" data-testid="totp-qr" role="img" aria-label="QR code of the otpauth URI">${raw(input.qrSvg)}</div>
      <div class="card"><p>Key to type (base32, time-based, six digits, 30 seconds):</p>
        <p class="secret"><code data-testid="totp-secret">${input.secret}</code></p>
        <p class="muted">Shown once: this page is not cached and the key is kept only encrypted.</p></div>
    </div>
    ${confirmCodeForm()}`
}

/** The first code again (after a wrong one: the key is not shown twice). */
export function confirmCodeForm(message?: string): SafeHtml {
  return html`${message ? html`<p class="notice warning" role="alert">${message}</p>` : ''}
    <form method="post" action="/account/totp/confirm" class="stack card" aria-label="Confirm the code">
      ${codeField}<div><button type="submit">Turn on two-step sign-in</button></div></form>`
}

/** Recovery codes, shown once. */
export function recoveryCodesPage(codes: readonly string[], lead: string): SafeHtml {
  return html`<p class="notice success">${lead}</p>
    <p>Keep these ten recovery codes somewhere safe. Each signs in once in place of a code; this page will not
      show them again.</p>
    <ul class="plain" data-testid="totp-recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
    <p><a class="button" href="/account">Back to your account</a></p>`
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
