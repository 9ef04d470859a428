import type { Flash } from '../layout/flash.js'
import { html, type SafeHtml } from '../layout/html.js'
import { type PasskeyPlace, passkeyElsewhere } from './factor-pages.js'
import { DEMO_PROVIDER } from './oauth.js'
import { fieldError, flashNotice } from './page-kit.js'

// The second step of every guarded action of the account page: the person chose the action there (a
// plain link, no password asked), and confirms it here, on its own page, with the password (or a
// passkey, or a fresh sign-in at the demo IdP for an account it made). An error is shown beside the
// field. The confirmation is a step-up credential of the action's purpose: one use, this session only.

/** A guarded action, as its confirmation page shows it. */
export interface ConfirmAction {
  /** `/account/confirm/{key}` */
  readonly key: string
  /** The step-up purpose it spends. */
  readonly purpose: string
  /** The page's title and its button: "Remove the password". */
  readonly title: string
  /** What happens, in one or two sentences. */
  readonly what: string
  /** Where the confirmation posts. */
  readonly action: string
  readonly danger?: boolean
}

const actions = (provider = DEMO_PROVIDER, id = ''): Readonly<Record<string, ConfirmAction>> => ({
  'password-remove': {
    key: 'password-remove',
    purpose: 'password-remove',
    title: 'Remove the password',
    what: 'The password will no longer sign in to this account; your other ways in stay. Every other session of the account ends.',
    action: '/account/password/remove',
    danger: true,
  },
  'password-add': {
    key: 'password-add',
    purpose: 'password-add',
    title: 'Add a password',
    what: 'Choose a username and a password: they will sign in to this account too.',
    action: '/account/password/add',
  },
  'oauth-link': {
    key: 'oauth-link',
    purpose: 'oauth-link',
    title: 'Link the demo identity provider',
    what: 'After you confirm, you sign in at the demo identity provider; that identity then signs in to this account too.',
    action: `/account/link/${DEMO_PROVIDER}`,
  },
  'oauth-unlink': {
    key: 'oauth-unlink',
    purpose: 'oauth-unlink',
    title: `Unlink ${providerName(provider)}`,
    what: `Your identity at ${providerName(provider)} will no longer sign in to this account. Every other session of the account ends.`,
    action: `/account/unlink/${encodeURIComponent(provider)}/${encodeURIComponent(id)}`,
    danger: true,
  },
  'passkey-register': {
    key: 'passkey-register',
    purpose: 'passkey-register',
    title: 'Add a passkey',
    what: 'After you confirm, you name the passkey and your device creates it (fingerprint, face, PIN or security key).',
    action: '/account/passkeys/add',
  },
  'passkey-remove': {
    key: 'passkey-remove',
    purpose: 'passkey-remove',
    title: 'Remove the passkey',
    what: 'The passkey will no longer sign in to this account.',
    action: `/account/passkeys/${encodeURIComponent(id)}/remove`,
    danger: true,
  },
  'totp-enroll': {
    key: 'totp-enroll',
    purpose: 'totp-enroll',
    title: 'Set up two-step sign-in',
    what: 'After you confirm, you scan a code with an authenticator app and type the six digits it shows.',
    action: '/account/totp/enroll',
  },
  'totp-recovery-codes': {
    key: 'totp-recovery-codes',
    purpose: 'totp-recovery-codes',
    title: 'Make new recovery codes',
    what: 'You get ten new recovery codes, shown once; the old ones stop working.',
    action: '/account/totp/recovery-codes',
  },
  'totp-disable': {
    key: 'totp-disable',
    purpose: 'totp-disable',
    title: 'Turn off two-step sign-in',
    what: 'Your password alone will sign in again, and your recovery codes stop working.',
    action: '/account/totp/disable',
    danger: true,
  },
  'delete-account': {
    key: 'delete-account',
    purpose: 'delete-account',
    title: 'Delete the account',
    what: 'Removes the account, its sign-in methods, sessions, API keys and the tokens providers gave it. It cannot be undone.',
    action: '/account/delete',
    danger: true,
  },
})

/** The provider as a heading or a table names it. */
export function providerLabel(provider: string): string {
  return provider === DEMO_PROVIDER ? 'Demo identity provider' : provider
}

/** The provider as a sentence names it. */
export function providerName(provider: string): string {
  return provider === DEMO_PROVIDER ? 'the demo identity provider' : provider
}

/** The action of `key` (with the identity or passkey it concerns), or undefined for an unknown key. */
export function confirmAction(key: string, subject: { provider?: string; id?: string } = {}) {
  return actions(subject.provider, subject.id)[key]
}

/** The ways this account can confirm an action. */
export interface ConfirmWays {
  readonly password: boolean
  readonly passkey: boolean
  readonly place: PasskeyPlace | undefined
  /** A fresh sign-in at the demo IdP confirms this action (an account the IdP made, without a password). */
  readonly idp: boolean
  /** Step 1 (the IdP sign-in) is done: its confirmation waits in this browser. */
  readonly idpConfirmed: boolean
  /** The password's username, for the browser's password manager (a hidden field). */
  readonly username?: string | undefined
}

/** The password field of a confirmation, with the error of the last try beside it. */
export function passwordField(flash: Flash | undefined, label = 'Your password'): SafeHtml {
  const error = fieldError(flash, 'password')
  return html`<label>${label} <input name="password" type="password" autocomplete="current-password" required autofocus${error.invalid}></label>
    ${error.message}`
}

/** The confirmation page of `action`: what happens, then how to confirm it (the error beside the field). */
export function confirmPage(input: {
  readonly action: ConfirmAction
  readonly ways: ConfirmWays
  readonly flash: Flash | undefined
  /** Fields the action itself needs (a username and a new password). */
  readonly fields?: SafeHtml
  readonly path: string
}): SafeHtml {
  const { action, ways, flash } = input
  const style = action.danger ? 'danger' : ''
  const cancel = html`<a href="/account">Cancel</a>`
  const intro = html`${flashNotice(flash)}<p class="lead">${action.what}</p>`
  if (ways.password || ways.passkey) {
    return html`${intro}
      <form method="post" action="${action.action}" class="stack card" aria-label="${action.title}">
        ${input.fields ?? ''}
        ${ways.password && ways.username !== undefined ? html`<input type="text" name="account_username" autocomplete="username" value="${ways.username}" hidden>` : ''}
        ${ways.password ? passwordField(flash) : ''}
        <div class="actions">
          ${ways.password ? html`<button type="submit" class="${style}">${action.title}</button>` : ''}
          ${
            ways.passkey
              ? html`<button type="button" class="${ways.password ? 'secondary' : style}" data-passkey-step-up="${action.purpose}">${
                  ways.password
                    ? 'Confirm with a passkey instead'
                    : `${action.title} (confirm with a passkey)`
                }</button>`
              : ''
          }
          ${cancel}
        </div>
        ${ways.password ? html`<p class="muted">We ask again because this changes how your account is protected. The confirmation works once, for this action only.</p>` : ''}
      </form>
      ${ways.passkey && ways.place !== undefined ? passkeyElsewhere(ways.place, input.path) : ''}`
  }
  if (ways.idp) {
    const step2 = ways.idpConfirmed
    return html`${intro}
      <ol class="steps">
        <li class="card${step2 ? ' done' : ''}" data-step="1">
          ${
            step2
              ? html`<p data-testid="step-1-done"><strong>Step 1 done:</strong> the demo identity provider confirmed it is you.
                  It counts once, for the next five minutes.</p>`
              : html`<form method="post" action="/auth/oauth/${DEMO_PROVIDER}/reauthenticate/${action.purpose}" class="stack">
                  <input type="hidden" name="return_to" value="${input.path}">
                  <p><strong>Step 1:</strong> sign in again at the demo identity provider, to confirm it is you.</p>
                  <div><button type="submit">Confirm at the demo IdP</button></div></form>`
          }
        </li>
        <li class="card" data-step="2">
          <form method="post" action="${action.key === 'delete-account' ? '/auth/account/delete' : action.action}" class="stack" aria-label="${action.title}">
            <p><strong>Step 2:</strong> ${step2 ? 'now' : 'after step 1,'} ${action.title.toLowerCase()}.</p>
            <fieldset class="plain"${step2 ? '' : html` disabled`}>
              ${input.fields ?? ''}
              <div class="actions"><button type="submit" class="${style}">${action.title}</button> ${cancel}</div>
            </fieldset>
          </form>
        </li>
      </ol>`
  }
  return html`${intro}<p class="notice warning">This account has no way to confirm this action here.</p>
    <p>${cancel}</p>`
}
