import type { AccountEmail } from '@portcullis/core/account-email'
import type { EmailAddress } from '@portcullis/core/accounts'
import { SECURITY_CHANGE_TYPES, type SecurityChangeType } from '@portcullis/core/mail'
import { required } from '@portcullis/core/policy'
import type { SecureRouter } from '@portcullis/express'
import type { Request, RequestHandler } from 'express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { AccountKit } from '../accounts/page-kit.js'
import { html, type SafeHtml } from '../layout/html.js'
import { ADD_ADDRESS_PATH, ADDRESS_ACTION_PATH, RESEND_ADDRESS_PATH } from './address-pages.js'
import { EMAIL_CHANGE_PATH } from './email-change-pages.js'

/** Where the account page's notification settings post. */
export const NOTIFICATIONS_PATH = '/account/notifications'

/** Each kind of security notification as the person chooses it. */
const KIND_WORDS: Readonly<Record<SecurityChangeType, string>> = {
  'password-changed': 'the password was changed',
  'password-reset': 'the password was reset by mail',
  'address-added': 'an email address was added',
  'address-changed': 'the email address was changed',
  'address-removed': 'an email address was removed',
  'factor-added': 'a passkey, two-step sign-in or recovery codes were added',
  'factor-removed': 'a passkey or two-step sign-in was removed',
  'identity-linked': 'an identity provider was linked',
  'identity-unlinked': 'an identity provider was unlinked',
  'mcp-client-connected': 'an app or AI agent was connected',
}

/**
 * The account page's section about mail: the addresses (verified or not, the primary first) with what
 * each offers (a new code for an unverified one, making a verified one primary, removing one), a link to
 * the page that adds one (the account page asks no password itself), and which security notifications
 * go to the primary address. Every kind is on until the person turns it off.
 */
export function emailSection(input: {
  readonly addresses: readonly EmailAddress[]
  readonly optOuts: readonly SecurityChangeType[]
}): SafeHtml {
  const off = new Set(input.optOuts)
  const only = input.addresses.length === 1
  return html`<h2>Email</h2>
    ${
      input.addresses.length === 0
        ? html`<p class="muted" data-testid="no-address">No email address: a forgotten password cannot be reset by
            mail, and no notification can reach you.</p>`
        : html`<ul class="plain" data-testid="addresses">${input.addresses.map(
            (address) => html`<li><span data-address="${address.address}"><code>${address.address}</code>
              ${address.primary ? html`<span class="badge active">primary</span>` : ''}
              ${address.verified ? html`<span class="badge">verified</span>` : html`<span class="badge expired">not verified</span>`}</span>
              <span class="actions">${addressActions(address, only)}</span></li>`,
          )}</ul>`
    }
    <p><a href="${EMAIL_CHANGE_PATH}">Change the email address</a></p>
    <p><a href="${ADD_ADDRESS_PATH}">Add an address</a></p>
    <form method="post" action="${NOTIFICATIONS_PATH}" class="stack card" aria-label="Security notifications">
      <fieldset class="plain"><legend>Tell me by mail when</legend>
        ${SECURITY_CHANGE_TYPES.map(
          (
            kind,
          ) => html`<label class="check"><input type="checkbox" name="notify" value="${kind}"${off.has(kind) ? '' : html` checked`}>
            ${KIND_WORDS[kind]}</label>`,
        )}
      </fieldset>
      <div><button type="submit" class="secondary">Save the notification settings</button></div>
      <p class="muted">They go to the primary address once it is verified.</p>
    </form>`
}

const actionHref = (action: 'primary' | 'remove', address: string) =>
  `${ADDRESS_ACTION_PATH}?${new URLSearchParams({ action, address })}`

/** What one address offers: a new code while unverified; primary and removal where allowed. */
function addressActions(address: EmailAddress, only: boolean): SafeHtml {
  const resend = address.verified
    ? html``
    : html`<form method="post" action="${RESEND_ADDRESS_PATH}" class="inline">
        <input type="hidden" name="address" value="${address.address}">
        <button type="submit" class="secondary" aria-label="Send a new code to ${address.address}">Send a new code</button></form>`
  const primary =
    address.verified && !address.primary
      ? html`<a class="button secondary" href="${actionHref('primary', address.address)}"
          aria-label="Make ${address.address} primary">Make primary</a>`
      : html``
  const remove =
    !address.primary || only
      ? html`<a class="button danger" href="${actionHref('remove', address.address)}"
          aria-label="Remove ${address.address}">Remove</a>`
      : html``
  return html`${resend} ${primary} ${remove}`
}

/** The kinds a submitted form turned off: every kind whose box was not ticked. */
export function optOutsOf(request: Request): readonly SecurityChangeType[] {
  const value = ((request.body ?? {}) as Record<string, unknown>).notify
  const ticked = new Set(Array.isArray(value) ? value : typeof value === 'string' ? [value] : [])
  return SECURITY_CHANGE_TYPES.filter((kind) => !ticked.has(kind))
}

/** `POST /account/notifications`: saves the opt-outs, then back to the account page with a notice. */
export function notificationRoutes(
  router: SecureRouter,
  accountEmail: AccountEmail,
  kit: AccountKit,
  form: RequestHandler,
): void {
  router.post(NOTIFICATIONS_PATH, { auth: required(SESSION_MECHANISM) }, form, async (request, response) => {
    try {
      await accountEmail.setNotificationSettings(kit.accountId(request), { optOuts: optOutsOf(request) })
      kit.done(request, response, '/account', { notice: 'Notification settings saved.' })
    } catch (error) {
      kit.failed(request, response, error, '/account')
    }
  })
}
