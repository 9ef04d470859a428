import type { ActivityItem } from '@portcullis/core/security-log'
import { providerName } from '../accounts/confirm-pages.js'

const METHODS: Readonly<Record<string, string>> = {
  password: 'your password',
  password_totp: 'your password and a one-time code',
  passkey: 'a passkey',
  totp: 'a one-time code',
  email_code: 'a code sent by email',
  recovery_codes: 'recovery codes',
}

/** "with your password", "with the demo identity provider", or nothing when the method is not known. */
function how(method: string | null): string {
  if (method === null) return ''
  return ` with ${METHODS[method] ?? providerName(method)}`
}

/**
 * One sentence for one item of the activity page: what happened, in words; what an administrator did
 * while acting as the person (an impersonation: the item names them) says so.
 */
export function activitySentence(item: ActivityItem): string {
  if (item.kind === 'administrative_act' || item.actorId === null) return sentenceOf(item)
  return `${sentenceOf(item).replace(/\.$/, '')}, by an administrator acting as you.`
}

function sentenceOf(item: ActivityItem): string {
  if (item.type === 'impersonation.refused') {
    return 'An administrator acting as you was refused something that would outlast the impersonation (an API key, an app connection, an invitation). Nothing changed.'
  }
  if (item.type === 'csrf.refused') {
    return 'A form sent from another site, while an administrator was acting as you, was refused. Nothing changed.'
  }
  switch (item.kind) {
    case 'signed_in':
      return `Signed in${how(item.method)}.`
    case 'sign_in_failed':
      return `A sign-in failed${item.reason === 'bad_password' ? ': wrong password' : ''}${item.method === null || item.method === 'password' ? '' : ` (${METHODS[item.method] ?? item.method})`}.`
    case 'signed_out':
      return item.reason === 'logout' ? 'Signed out.' : 'A session was signed out.'
    case 'signed_out_everywhere':
      return 'Signed out everywhere else.'
    case 'password_changed':
      return item.method === 'email_code' ? 'The password was reset by email.' : 'The password was changed.'
    case 'address_changed':
      return 'An email address changed.'
    case 'factor_added':
      return `Added ${METHODS[item.method ?? ''] ?? 'a way to sign in'}.`
    case 'factor_removed':
      return `Removed ${METHODS[item.method ?? ''] ?? 'a way to sign in'}.`
    case 'identity_linked':
      return `Linked ${item.method === null ? 'an identity provider' : providerName(item.method)}.`
    case 'identity_unlinked':
      return `Unlinked ${item.method === null ? 'an identity provider' : providerName(item.method)}.`
    case 'client_connected':
      return `Connected ${item.client ?? 'an app'}.`
    case 'client_disconnected':
      return `Disconnected ${item.client ?? 'an app'}.`
    case 'account_changed':
      return 'The account was changed.'
    case 'administrative_act':
      return 'An administrator acted on the account.'
  }
}
