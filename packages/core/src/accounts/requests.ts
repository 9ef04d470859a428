import { validateNewCode } from '../codes/input.js'
import type { NewOneTimeCode } from '../codes/port.js'
import {
  invalid,
  requireAfter,
  requireBoolean,
  requireInstant,
  requireNormalizedUsername,
  requirePasswordHash,
  requireRecord,
  requireStoreId,
  requireTokenDigest,
} from '../local-accounts/store-input.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import type { SecurityLogEntry } from '../security-log/entry.js'
import { validateSecurityLogEntries, type WithSecurityLog } from '../security-log/in-transaction.js'
import { requireNormalizedEmailAddress } from './email-requests.js'
import type { AccountStatus, PasswordRecord } from './records.js'

// The requests of the `AccountStore` port and the checks every store (memory, Postgres, yours) applies
// before it reads or writes anything, so bad input is the same typed `local.invalid_input` (or
// `local.invalid_username`) error everywhere and nothing is written. A request's `outbox` entries are
// checked here too (`mail.invalid_outbox_entry`): a store writes them in the change's transaction, and
// only when the change happens (see `OutboxEntry`).

export interface CreateAccountRequest {
  readonly accountId: string
  /** Already normalized (`normalizeUsername`); anything else is `local.invalid_username`. */
  readonly username: string
  readonly passwordHash: string
  readonly now: Date
  /** An invite code's digest (`digestOpaqueToken`), consumed with the insert: single use, unexpired. */
  readonly invite?: { readonly digest: string } | undefined
  /**
   * The account's first email address (normalized), added unverified and primary in the same
   * transaction. Refused (`address-taken`, nothing created) when another account holds it verified.
   */
  readonly emailAddress?: string | undefined
  /**
   * A one-time code issued in the same transaction (sign-up with verification): bound to this account
   * (`code.accountId`) and to `emailAddress` (`code.address`), which it requires. The account is new, so
   * the code supersedes nothing. The store must hold the codes in the same storage (Postgres: the same
   * database; memory: `MemoryAccountStore({ codes })`); otherwise the request is refused.
   */
  readonly code?: NewOneTimeCode | undefined
  /** Messages written in the same transaction, only when the change happens (`sealOutboxMessage`). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/**
 * `invite-invalid` (unknown, used or expired invite) is decided before the username, so a caller without
 * a valid invite learns nothing about which usernames exist. `username-taken` never burns the invite.
 * `address-taken` (only with `emailAddress`): another account holds the address verified. Whatever the
 * outcome other than `created`, nothing is written: no account, address, code or message.
 */
export type CreateAccountOutcome =
  | { readonly outcome: 'created'; readonly account: PasswordRecord }
  | { readonly outcome: 'username-taken' }
  | { readonly outcome: 'invite-invalid' }
  | { readonly outcome: 'address-taken' }

export type FindPasswordQuery =
  | { readonly username: string }
  | { readonly accountId: string }
  | { readonly verifiedEmail: string }

export interface SetPasswordRequest {
  readonly accountId: string
  readonly passwordHash: string
  readonly now: Date
  /** Write only while the stored hash is still exactly this one (compare-and-swap). */
  readonly expectedPasswordHash?: string | undefined
  /** Increment the security epoch in the same transaction (a password change invalidates sessions). */
  readonly bumpEpoch: boolean
  /**
   * The same password re-encoded with new parameters (rehash on login): `passwordChangedAt` stays,
   * `expectedPasswordHash` is required and `bumpEpoch` must be false. Default false.
   */
  readonly rehash?: boolean | undefined
  /** Messages written in the same transaction, only when the change happens (`sealOutboxMessage`). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

export interface AddPasswordRequest {
  readonly accountId: string
  /** Already normalized (`normalizeUsername`). */
  readonly username: string
  readonly passwordHash: string
  readonly now: Date
  /** Messages written in the same transaction, only when the change happens (`sealOutboxMessage`). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/** `password-exists`: the account has a password already (change it instead). */
export type AddPasswordOutcome =
  | { readonly outcome: 'added'; readonly account: PasswordRecord }
  | { readonly outcome: 'username-taken' }
  | { readonly outcome: 'password-exists' }
  | { readonly outcome: 'not-found' }

export interface AccountChangeRequest extends WithSecurityLog {
  readonly accountId: string
  readonly now: Date
  /** Messages written in the same transaction, only when the change happens (`sealOutboxMessage`). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/**
 * Removing a sign-in method: `removed` with the account's new security epoch (removing a way in ends
 * every session and token family), `final-method` when it is the account's last way to sign in (nothing
 * changes), `not-found` when the account has no such method.
 */
export type RemoveSignInMethodOutcome =
  | { readonly outcome: 'removed'; readonly securityEpoch: number }
  | { readonly outcome: 'final-method' }
  | { readonly outcome: 'not-found' }

export interface SetAccountStatusRequest extends WithSecurityLog {
  readonly accountId: string
  readonly status: AccountStatus
  readonly now: Date
  /** Messages written in the same transaction, only when the change happens (`sealOutboxMessage`). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/**
 * `tokens-retained`: a linked identity still holds provider tokens (stage their revocation first, see
 * `OAuthRevocationRetries`); nothing was deleted. `last-owner`: the account is the only owner of
 * organizations that have other members (hand ownership over first); nothing was deleted.
 */
export type DeleteAccountOutcome =
  | { readonly outcome: 'deleted' }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'tokens-retained'; readonly providerAccountIds: readonly string[] }
  | { readonly outcome: 'last-owner'; readonly organizationIds: readonly string[] }

export interface IssueInviteRequest {
  /** `digestOpaqueToken(code)`: the invite code itself is never stored. */
  readonly digest: string
  readonly expiresAt: Date
  readonly now: Date
}

/** An account id argument (`getAccount`, `listSignInMethods`): 1-255 characters, no control characters. */
export function validateAccountId(accountId: unknown): string {
  return requireStoreId(accountId, 'accountId')
}

/** `createAccount` input, validated and copied. */
export function validateCreateAccount(request: unknown): {
  readonly accountId: string
  readonly username: string
  readonly passwordHash: string
  readonly now: Date
  readonly inviteDigest: string | undefined
  readonly emailAddress: string | undefined
  readonly code: NewOneTimeCode | undefined
  readonly outbox: readonly OutboxEntry[]
} {
  const fields = requireRecord(request, 'request')
  const invite = fields.invite === undefined ? undefined : requireRecord(fields.invite, 'invite')
  const accountId = requireStoreId(fields.accountId, 'accountId')
  const emailAddress =
    fields.emailAddress === undefined
      ? undefined
      : requireNormalizedEmailAddress(fields.emailAddress, 'emailAddress')
  const code = fields.code === undefined ? undefined : validateNewCode(fields.code)
  if (code !== undefined && (code.accountId !== accountId || code.address !== emailAddress)) {
    throw invalid('code must be bound to the new account (code.accountId) and to emailAddress (code.address)')
  }
  return {
    accountId,
    username: requireNormalizedUsername(fields.username),
    passwordHash: requirePasswordHash(fields.passwordHash, 'passwordHash'),
    now: requireInstant(fields.now, 'now'),
    inviteDigest: invite === undefined ? undefined : requireTokenDigest(invite.digest, 'invite.digest'),
    emailAddress,
    code,
    outbox: validateOutboxEntries(fields.outbox),
  }
}

/** `findPassword` input: exactly one of `username`, `accountId` and `verifiedEmail`. */
export function validateFindPassword(
  query: unknown,
): { readonly username: string } | { readonly accountId: string } | { readonly verifiedEmail: string } {
  const fields = requireRecord(query, 'query')
  const given = ['username', 'accountId', 'verifiedEmail'].filter((key) => fields[key] !== undefined)
  if (given.length !== 1) {
    throw invalid('query must have exactly one of username, accountId and verifiedEmail')
  }
  if (fields.username !== undefined) return { username: requireNormalizedUsername(fields.username) }
  if (fields.accountId !== undefined) return { accountId: requireStoreId(fields.accountId, 'accountId') }
  return { verifiedEmail: requireNormalizedEmailAddress(fields.verifiedEmail, 'verifiedEmail') }
}

/** `setPassword` input, validated and copied. */
export function validateSetPassword(request: unknown): {
  readonly accountId: string
  readonly passwordHash: string
  readonly now: Date
  readonly expectedPasswordHash: string | undefined
  readonly bumpEpoch: boolean
  readonly rehash: boolean
  readonly outbox: readonly OutboxEntry[]
} {
  const fields = requireRecord(request, 'request')
  const expected =
    fields.expectedPasswordHash === undefined
      ? undefined
      : requirePasswordHash(fields.expectedPasswordHash, 'expectedPasswordHash')
  const rehash = fields.rehash === undefined ? false : requireBoolean(fields.rehash, 'rehash')
  const bumpEpoch = requireBoolean(fields.bumpEpoch, 'bumpEpoch')
  if (rehash && (bumpEpoch || expected === undefined)) {
    throw invalid('a rehash needs expectedPasswordHash and never bumps the epoch')
  }
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    passwordHash: requirePasswordHash(fields.passwordHash, 'passwordHash'),
    now: requireInstant(fields.now, 'now'),
    expectedPasswordHash: expected,
    bumpEpoch,
    rehash,
    outbox: validateOutboxEntries(fields.outbox),
  }
}

/** `addPassword` input, validated and copied. */
export function validateAddPassword(
  request: unknown,
): AddPasswordRequest & { readonly outbox: readonly OutboxEntry[] } {
  const fields = requireRecord(request, 'request')
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    username: requireNormalizedUsername(fields.username),
    passwordHash: requirePasswordHash(fields.passwordHash, 'passwordHash'),
    now: requireInstant(fields.now, 'now'),
    outbox: validateOutboxEntries(fields.outbox),
  }
}

/** Input of `bumpSecurityEpoch`, `removePassword` and `deleteAccount`, validated and copied. */
export function validateAccountChange(request: unknown): AccountChangeRequest & {
  readonly outbox: readonly OutboxEntry[]
  readonly securityLog: readonly SecurityLogEntry[]
} {
  const fields = requireRecord(request, 'request')
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    now: requireInstant(fields.now, 'now'),
    outbox: validateOutboxEntries(fields.outbox),
    securityLog: validateSecurityLogEntries(fields.securityLog),
  }
}

/** `setAccountStatus` input, validated and copied. */
export function validateSetAccountStatus(request: unknown): SetAccountStatusRequest & {
  readonly outbox: readonly OutboxEntry[]
  readonly securityLog: readonly SecurityLogEntry[]
} {
  const fields = requireRecord(request, 'request')
  if (fields.status !== 'active' && fields.status !== 'disabled') {
    throw invalid('status must be active or disabled')
  }
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    status: fields.status,
    now: requireInstant(fields.now, 'now'),
    outbox: validateOutboxEntries(fields.outbox),
    securityLog: validateSecurityLogEntries(fields.securityLog),
  }
}

/** `issueInvite` input, validated and copied; `expiresAt` must be after `now`. */
export function validateIssueInvite(request: unknown): IssueInviteRequest {
  const fields = requireRecord(request, 'request')
  const copy = {
    digest: requireTokenDigest(fields.digest, 'digest'),
    expiresAt: requireInstant(fields.expiresAt, 'expiresAt'),
    now: requireInstant(fields.now, 'now'),
  }
  requireAfter(copy.expiresAt, copy.now, 'expiresAt must be after now')
  return copy
}
