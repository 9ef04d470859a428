// The messages a person receives from the account flows, each with exactly the data it needs. The
// recipient's `name` is the account's display name (the greeting and the To header).
import type { MailAddress } from './headers.js'

interface MessageBase {
  /** Recipient; `name` is the account's display name when it has one. */
  readonly to: MailAddress
  /** BCP 47 language tag of the person (`en`, `fr-CA`), passed through to the template. */
  readonly locale: string
}

/** A code the person types (and optionally a link carrying it to a confirmation page that POSTs). */
interface CodeMessage extends MessageBase {
  readonly code: string
  /** An absolute http(s) URL built from the configured public origin, never from a request's `Host`. */
  readonly link?: string
  /** How long the code stays valid, in minutes (what the message tells the person). */
  readonly validForMinutes: number
}

/** Verify an address added to an account (or given at sign-up). */
export interface VerificationMessage extends CodeMessage {
  readonly kind: 'verification'
}

/** Reset a forgotten password. */
export interface PasswordResetMessage extends CodeMessage {
  readonly kind: 'password-reset'
}

/** Confirm a new address, sent to that new address; nothing changes until it is confirmed. */
export interface EmailChangeVerificationMessage extends CodeMessage {
  readonly kind: 'email-change-verification'
}

/** Sign in with a code sent by email (when the application turns it on). */
export interface SignInCodeMessage extends CodeMessage {
  readonly kind: 'sign-in-code'
}

/** Told to the old address when a change to a new one was requested, with a way to undo it. */
export interface EmailChangeNoticeMessage extends MessageBase {
  readonly kind: 'email-change-notice'
  /** The address the account is moving to. */
  readonly newAddress: string
  /** An absolute http(s) URL of the page that undoes the change. */
  readonly undoLink: string
  /** How long the undo link works, in days. */
  readonly undoValidForDays: number
}

/** The second factors and recovery codes a security notification may name. */
export type MailFactor = 'passkey' | 'totp' | 'recovery-codes'

/** What changed on the account. */
export type SecurityChange =
  | { readonly type: 'password-changed' }
  | { readonly type: 'password-reset' }
  | { readonly type: 'address-added'; readonly address: string }
  | { readonly type: 'address-changed'; readonly address: string }
  | { readonly type: 'address-removed'; readonly address: string }
  | { readonly type: 'factor-added'; readonly factor: MailFactor; readonly label?: string }
  | { readonly type: 'factor-removed'; readonly factor: MailFactor; readonly label?: string }
  | { readonly type: 'identity-linked'; readonly provider: string }
  | { readonly type: 'identity-unlinked'; readonly provider: string }
  | { readonly type: 'mcp-client-connected'; readonly client: string }

export type SecurityChangeType = SecurityChange['type']

/** A change to the account's sign-in methods, addresses or connected clients. */
export interface SecurityNotificationMessage extends MessageBase {
  readonly kind: 'security-notification'
  readonly change: SecurityChange
  readonly occurredAt: Date
  /** An absolute http(s) URL of the page where the person reviews their account's security. */
  readonly reviewLink?: string
}

/** Someone tried to sign up with an address that already has an account (sent instead of a code). */
export interface ExistingAccountSignUpMessage extends MessageBase {
  readonly kind: 'existing-account-sign-up'
  readonly signInLink?: string
  readonly resetLink?: string
}

/** Someone asked to reset a password for an address that has no account. */
export interface UnknownAccountResetMessage extends MessageBase {
  readonly kind: 'unknown-account-reset'
  readonly signUpLink?: string
}

/** An invitation to join an organization: its code, and a link carrying it to the page that accepts. */
export interface InvitationMessage extends MessageBase {
  readonly kind: 'invitation'
  /** The organization's name as its members see it. */
  readonly organizationName: string
  readonly code: string
  /** An absolute http(s) URL built from the configured public origin, never from a request's `Host`. */
  readonly link: string
  /** How long the invitation stays valid, in days (1 to 30). */
  readonly validForDays: number
}

/** Every message the mail port sends. */
export type MailMessage =
  | VerificationMessage
  | PasswordResetMessage
  | EmailChangeVerificationMessage
  | EmailChangeNoticeMessage
  | SignInCodeMessage
  | SecurityNotificationMessage
  | ExistingAccountSignUpMessage
  | UnknownAccountResetMessage
  | InvitationMessage

export type MailMessageKind = MailMessage['kind']

/** The message of one kind. */
export type MailMessageOf<K extends MailMessageKind> = Extract<MailMessage, { kind: K }>

/** Every kind, in a stable order. */
export const MAIL_MESSAGE_KINDS: readonly MailMessageKind[] = [
  'verification',
  'password-reset',
  'email-change-verification',
  'email-change-notice',
  'sign-in-code',
  'security-notification',
  'existing-account-sign-up',
  'unknown-account-reset',
  'invitation',
]

/** Every security change type, in a stable order. */
export const SECURITY_CHANGE_TYPES: readonly SecurityChangeType[] = [
  'password-changed',
  'password-reset',
  'address-added',
  'address-changed',
  'address-removed',
  'factor-added',
  'factor-removed',
  'identity-linked',
  'identity-unlinked',
  'mcp-client-connected',
]
