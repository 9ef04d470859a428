import {
  invalid,
  requireBoolean,
  requireInstant,
  requireRecord,
  requireStoreId,
} from '../local-accounts/store-input.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import { EmailAddressError, isNormalizedEmailAddress } from './email-address.js'

// The email addresses of an account: their records, the requests of the `AccountStore` operations on
// them, and the checks every store applies first (bad input is a typed error, nothing is written).

/** How many addresses one account may hold, verified or not. */
export const MAX_EMAIL_ADDRESSES_PER_ACCOUNT = 10

/**
 * One address of an account. `address` is as `normalizeEmailAddress` returns it. A verified address
 * belongs to this account only; an unverified one may be held by several accounts at once. When an
 * account has addresses, exactly one is `primary`.
 */
export interface EmailAddress {
  readonly accountId: string
  readonly address: string
  readonly verified: boolean
  readonly primary: boolean
  readonly createdAt: Date
  readonly verifiedAt: Date | null
}

/** A frozen copy; stores return their records through this. */
export function emailAddressRecord(fields: EmailAddress): EmailAddress {
  return Object.freeze({
    accountId: fields.accountId,
    address: fields.address,
    verified: fields.verified,
    primary: fields.primary,
    createdAt: new Date(fields.createdAt.getTime()),
    verifiedAt: fields.verifiedAt === null ? null : new Date(fields.verifiedAt.getTime()),
  })
}

/** Frozen listings: the primary first, then by when they were added, then by address. */
export function emailAddressList(addresses: readonly EmailAddress[]): readonly EmailAddress[] {
  return Object.freeze(
    [...addresses]
      .sort(
        (a, b) =>
          Number(b.primary) - Number(a.primary) ||
          a.createdAt.getTime() - b.createdAt.getTime() ||
          (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
      )
      .map(emailAddressRecord),
  )
}

export interface EmailAddressRequest {
  readonly accountId: string
  /** Already normalized (`normalizeEmailAddress`); anything else is `email.invalid_address`. */
  readonly address: string
  readonly now: Date
  /** Messages written in the same transaction, only when the change happens (`sealOutboxMessage`). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/**
 * `added`: a new unverified address (primary when it is the account's first). `exists`: the account has
 * it already (nothing changes). `verified-elsewhere`: another account holds it verified, so this one
 * could never verify it (a flow answers the person the same either way). `too-many`: the account holds
 * `MAX_EMAIL_ADDRESSES_PER_ACCOUNT` already.
 */
export type AddEmailAddressOutcome =
  | { readonly outcome: 'added'; readonly address: EmailAddress }
  | { readonly outcome: 'exists'; readonly address: EmailAddress }
  | { readonly outcome: 'verified-elsewhere' }
  | { readonly outcome: 'too-many' }
  | { readonly outcome: 'not-found' }

export interface VerifyEmailAddressRequest extends EmailAddressRequest {
  /** Make it the primary address in the same transaction (an email change). Default false. */
  readonly makePrimary?: boolean | undefined
}

/**
 * `verified` (also when it was verified already), with the account's security epoch (moved when
 * `makePrimary` changed the primary). `taken`: another account verified it first; this account's copy
 * stays unverified. `not-found`: the account has no such address (or no longer exists).
 */
export type VerifyEmailAddressOutcome =
  | { readonly outcome: 'verified'; readonly address: EmailAddress; readonly securityEpoch: number }
  | { readonly outcome: 'taken' }
  | { readonly outcome: 'not-found' }

/**
 * `set` with the account's security epoch: a change of primary address moves it (where recovery mail
 * goes is part of the account's identity); making the primary primary again changes nothing.
 * `unverified`: only a verified address can be primary.
 */
export type SetPrimaryEmailAddressOutcome =
  | { readonly outcome: 'set'; readonly securityEpoch: number }
  | { readonly outcome: 'unverified' }
  | { readonly outcome: 'not-found' }

/** What a caller signs people in with (as `LocalAccounts`' `signInWith`): usernames, verified addresses. */
export type SignInIdentifier = 'username' | 'email'

export interface RemoveEmailAddressRequest extends EmailAddressRequest {
  /**
   * How the caller signs people in (`LocalAccounts.signInWith`). Default `['username']`: an address is
   * then no way in and removing one never touches sign-in. Without `'username'`, the password is reached
   * only through a verified address, so the last verified address of an account whose only other way in
   * is its password is its last sign-in method.
   */
  readonly signInWith?: readonly SignInIdentifier[] | undefined
}

/**
 * `removed` with the account's security epoch: removing a verified address moves it (it could recover
 * or sign in to the account), an unverified one does not. `primary`: the primary goes only when it is
 * the account's last address (make another primary first). `final-method`: it is the account's last
 * way to sign in. `not-found`: the account has no such address.
 */
export type RemoveEmailAddressOutcome =
  | { readonly outcome: 'removed'; readonly securityEpoch: number }
  | { readonly outcome: 'primary' }
  | { readonly outcome: 'final-method' }
  | { readonly outcome: 'not-found' }

/** An address exactly as `normalizeEmailAddress` returns it; anything else is `email.invalid_address`. */
export function requireNormalizedEmailAddress(value: unknown, field = 'address'): string {
  if (!isNormalizedEmailAddress(value)) {
    throw new EmailAddressError(
      typeof value === 'string' ? 'local-part' : 'not-a-string',
      `${field} must be an address as normalizeEmailAddress returns it`,
    )
  }
  return value
}

/** `addEmailAddress` and `setPrimaryEmailAddress` input, validated and copied. */
export function validateEmailAddressRequest(
  request: unknown,
): EmailAddressRequest & { readonly outbox: readonly OutboxEntry[] } {
  const fields = requireRecord(request, 'request')
  return {
    accountId: requireStoreId(fields.accountId, 'accountId'),
    address: requireNormalizedEmailAddress(fields.address),
    now: requireInstant(fields.now, 'now'),
    outbox: validateOutboxEntries(fields.outbox),
  }
}

/** `verifyEmailAddress` input, validated and copied. */
export function validateVerifyEmailAddress(request: unknown): EmailAddressRequest & {
  readonly makePrimary: boolean
  readonly outbox: readonly OutboxEntry[]
} {
  const fields = requireRecord(request, 'request')
  return {
    ...validateEmailAddressRequest(request),
    makePrimary: fields.makePrimary === undefined ? false : requireBoolean(fields.makePrimary, 'makePrimary'),
  }
}

/** `removeEmailAddress` input, validated and copied (`signInWith` defaults to `['username']`). */
export function validateRemoveEmailAddress(request: unknown): EmailAddressRequest & {
  readonly signInWith: readonly SignInIdentifier[]
  readonly outbox: readonly OutboxEntry[]
} {
  const fields = requireRecord(request, 'request')
  const signInWith = fields.signInWith === undefined ? ['username'] : fields.signInWith
  if (
    !Array.isArray(signInWith) ||
    signInWith.length === 0 ||
    !signInWith.every((each) => each === 'username' || each === 'email')
  ) {
    throw invalid('signInWith must be a non-empty array of username and email')
  }
  return { ...validateEmailAddressRequest(request), signInWith: Object.freeze([...signInWith]) }
}

/**
 * Whether removing an account's address leaves it no way to sign in: `others` counts its identities
 * and usable passkeys, `hasPassword` its password, `verifiedAfter` its verified addresses after the
 * removal. Stores call this under the account's lock.
 */
export function removalLeavesNoWayIn(
  signInWith: readonly SignInIdentifier[],
  counts: { readonly others: number; readonly hasPassword: boolean; readonly verifiedBefore: number },
  removingVerified: boolean,
): boolean {
  const reachable = (verified: number) =>
    counts.others +
    (counts.hasPassword && (signInWith.includes('username') || (signInWith.includes('email') && verified > 0))
      ? 1
      : 0)
  const before = reachable(counts.verifiedBefore)
  const after = reachable(counts.verifiedBefore - (removingVerified ? 1 : 0))
  return before > 0 && after === 0
}
