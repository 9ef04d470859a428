import type { SecurityEventType } from '@portcullis/core/local-accounts'
import type { AppEvent, LoggedEvent } from './event-log.js'

// Security events as their owner reads them: one sentence per event type. The raw type and fields stay
// available to developers (the page folds them into a details element).

/** What a confirmation (a step-up of `purpose`) was for, as a person names the action. */
const PURPOSES: Readonly<Record<string, string>> = {
  'oauth-link': 'linking an identity provider',
  'oauth-unlink': 'unlinking an identity provider',
  'password-remove': 'removing the password',
  'password-add': 'adding a password',
  'delete-account': 'deleting the account',
  'passkey-register': 'adding a passkey',
  'passkey-remove': 'removing a passkey',
  'totp-enroll': 'setting up two-step sign-in',
  'totp-recovery-codes': 'new recovery codes',
  'totp-disable': 'turning two-step sign-in off',
  'oauth-authorize': 'connecting an app',
  'sign-in': 'signing in',
}

const LOGIN_FAILURES: Readonly<Record<string, string>> = {
  bad_password: 'a wrong password',
  inactive_account: 'the account is disabled',
  invalid_input: 'the form was incomplete',
  hashing_busy: 'the server was busy',
  unknown_account: 'no such account',
}

const SESSION_ENDS: Readonly<Record<string, string>> = {
  logout: 'signed out',
  revoked_by_account: 'ended from the account page',
  revoked_by_admin: 'ended by an administrator',
  epoch_bumped: 'ended with every other session',
  backchannel_logout: 'ended by the identity provider',
}

const EPOCH_REASONS: Readonly<Record<string, string>> = {
  password_changed: 'the password changed',
  password_reset: 'the password was reset',
  email_changed: 'your email address changed',
  email_change_undone: 'an email change was undone',
  password_removed: 'the password was removed',
  identity_unlinked: 'an identity provider was unlinked',
  account_disabled: 'the account was disabled',
  sign_out_everywhere: 'you signed out everywhere',
  admin: 'an administrator asked for it',
}

const text = (event: LoggedEvent, name: string): string => {
  const value = event.fields[name]
  return value === undefined ? '' : String(value)
}
const purpose = (event: LoggedEvent) => {
  const value = text(event, 'purpose')
  return PURPOSES[value] ?? 'a sensitive action'
}
const provider = (event: LoggedEvent) => {
  const value = text(event, 'provider')
  return value === 'demo' ? 'the demo identity provider' : value === '' ? 'an identity provider' : value
}

/** Every event type has its sentence: a type Portcullis adds fails the typecheck here until it is worded. */
const SENTENCES: Readonly<Record<SecurityEventType | AppEvent['type'], (event: LoggedEvent) => string>> = {
  'login.succeeded': () => 'You signed in with your password.',
  'login.failed': (event) =>
    `A sign-in to your account failed: ${LOGIN_FAILURES[text(event, 'reason')] ?? 'it was refused'}.`,
  'login.rate_limited': () => 'Too many sign-in attempts: further ones were refused for a while.',
  'session.created': () => 'A new session started (a browser or app was signed in).',
  'session.revoked': (event) => `A session ended: ${SESSION_ENDS[text(event, 'reason')] ?? 'it was ended'}.`,
  'refresh.reuse_detected': () =>
    'An old sign-in token was used again, so that sign-in was ended everywhere it was used.',
  'password.changed': () => 'Your password was changed.',
  'epoch.bumped': (event) =>
    `Every session and token of your account was signed out, because ${EPOCH_REASONS[text(event, 'reason')] ?? 'it was asked for'}.`,
  'csrf.refused': () =>
    'A form sent to this app from another site, in your name, was refused. Nothing was changed.',
  'step_up.issued': (event) => `You confirmed it was you, for ${purpose(event)}.`,
  'step_up.consumed': (event) => `That confirmation was used, for ${purpose(event)}.`,
  'oauth.signed_in': (event) =>
    event.fields.provisioned === 'true' || event.fields.provisioned === 1
      ? `Your account was created by signing in with ${provider(event)}.`
      : `You signed in with ${provider(event)}.`,
  'oauth.linked': (event) => `You linked ${provider(event)}: it signs in to this account now.`,
  'oauth.unlinked': (event) => `You unlinked ${provider(event)}: it no longer signs in to this account.`,
  'oauth.scopes_upgraded': (event) => `You allowed ${provider(event)} more access.`,
  'oauth.tokens_revoked': (event) => `The tokens ${provider(event)} gave this app were revoked.`,
  'oauth.revalidated': (event) => `${provider(event)} confirmed your sign-in is still valid.`,
  'oauth.reauthenticated': (event) =>
    `You signed in again at ${provider(event)} to confirm ${purpose(event)}.`,
  'oauth.backchannel_logout': (event) => `${provider(event)} signed you out of this app.`,
  'oauth.backchannel_logout_refused': (event) =>
    `A sign-out message claiming to come from ${provider(event)} was refused.`,
  'account.password_added': () => 'A password was added to your account.',
  'account.password_removed': () => 'The password of your account was removed.',
  'account.status_changed': (event) =>
    text(event, 'status') === 'disabled' ? 'Your account was disabled.' : 'Your account was enabled.',
  'account.deleted': () => 'The account was deleted.',
  'totp.enabled': () => 'Two-step sign-in was turned on.',
  'totp.disabled': () => 'Two-step sign-in was turned off.',
  'totp.verified': () => 'A code from your authenticator app was accepted.',
  'totp.failed': (event) =>
    text(event, 'reason') === 'invalid_recovery_code'
      ? 'A wrong recovery code was entered.'
      : text(event, 'reason') === 'replayed'
        ? 'A code from your authenticator app was used a second time and refused.'
        : 'A wrong code from an authenticator app was entered.',
  'totp.rate_limited': () => 'Too many codes were tried: further ones were refused for a while.',
  'recovery_code.used': (event) => `A recovery code was used to sign in (${text(event, 'remaining')} left).`,
  'recovery_codes.regenerated': () => 'New recovery codes were made; the old ones no longer work.',
  'second_factor.required': () => 'The password was right; a code from the authenticator app was asked for.',
  'passkey.registered': () => 'A passkey was added.',
  'passkey.removed': () => 'A passkey was removed.',
  'passkey.used': (event) =>
    text(event, 'ceremony') === 'step_up'
      ? 'You confirmed an action with a passkey.'
      : 'You signed in with a passkey.',
  'passkey.failed': () => 'A passkey sign-in failed.',
  'passkey.counter_regressed': () =>
    'A passkey reported an old signature count, which can mean it was copied: it was suspended.',
  'api_key.issued': () => 'You made a new API key.',
  'api_key.rotated': () => 'You replaced an API key with a new one.',
  'api_key.revoked': () => 'You revoked an API key: it no longer works.',
  'oauth.client_disconnected': () => 'You disconnected an app: its access was revoked.',
  'email.change_requested': () =>
    'A change of your email address was asked for: a code went to the new address, a notice to the old one.',
  'email.changed': () => 'Your email address changed: the new one is your primary address now.',
  'email.change_undone': () => 'A change of your email address was undone from the old address.',
  'email.address_added': () => 'An email address was added to your account: a code went to it.',
  'email.address_removed': () => 'An email address was removed from your account.',
  'sign_in_code.requested': () => 'A sign-in code was asked for by email.',
  'sign_in_code.failed': () => 'A sign-in code was refused (wrong, used or expired).',
  'sign_up.created': () => 'The account was created by signing up with an email address.',
  'sign_up.existing_address': () =>
    'Someone tried to sign up with your address; the address was told instead, and no account was made.',
  'sign_up.refused': () => 'A sign-up was refused: its invitation was not valid.',
  'email.verification_sent': () => 'A verification code was sent to your address.',
  'email.verified': () => 'Your email address was verified.',
  'email.verification_failed': (event) =>
    text(event, 'reason') === 'taken'
      ? 'An address could not be verified: another account verified it first.'
      : 'A verification code was refused (wrong, used or expired).',
  'email.address_verified_listener_failed': () =>
    'Your address was verified, but what follows a verification (such as an invitation) did not complete.',
  'password_reset.requested': () => 'A password reset was asked for by email.',
  'password_reset.second_factor_required': () =>
    'A reset code was right; the reset waited for your two-step sign-in code.',
  'password_reset.failed': () => 'A password reset step was refused.',
  'password_reset.completed': () => 'Your password was reset by email: every session was signed out.',
  'impersonation.started': () =>
    'An administrator started acting on your behalf (the reason is in the security log).',
  'impersonation.ended': () => 'An administrator stopped acting on your behalf.',
  'impersonation.refused': (event) =>
    `An administrator acting on your behalf was refused ${REFUSED_ACTS[text(event, 'act')] ?? 'an act'}: nothing changed.`,
  'organization.join_requested': (event) =>
    `You asked to join the organization ${text(event, 'organizationId') || 'of your verified domain'}.`,
  'organization.join_approved': (event) =>
    `An administrator approved your request to join ${text(event, 'organizationId') || 'an organization'}: you are a member now.`,
  'organization.join_declined': (event) =>
    `An administrator declined your request to join ${text(event, 'organizationId') || 'an organization'}.`,
}

/** The event as one sentence for its owner (a plain fallback for a type this page does not know). */
export function eventSentence(event: LoggedEvent): string {
  const sentence = (SENTENCES as Readonly<Record<string, (event: LoggedEvent) => string>>)[event.type]
  return sentence?.(event) ?? 'A security event was recorded.'
}

/** The address the event came from, when it names one. */
export function eventAddress(event: LoggedEvent): string | undefined {
  const from = text(event, 'clientAddress')
  return from === '' ? undefined : from
}

/** What an impersonation was refused, in words (`impersonation.refused`). */
export const REFUSED_ACTS: Readonly<Record<string, string>> = {
  'api_key.issue': 'a new API key',
  'api_key.rotate': 'the replacement of an API key',
  'oauth.consent': 'connecting an app',
  'organization.invite': 'an invitation',
  'organization.join_approve': 'the approval of a request to join',
}
