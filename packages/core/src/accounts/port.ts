import type { OAuthAccountStore } from '../oauth/accounts/port.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import type {
  AddEmailAddressOutcome,
  EmailAddress,
  EmailAddressRequest,
  RemoveEmailAddressOutcome,
  RemoveEmailAddressRequest,
  SetPrimaryEmailAddressOutcome,
  VerifyEmailAddressOutcome,
  VerifyEmailAddressRequest,
} from './email-requests.js'
import type { Account, PasswordRecord, SignInMethod } from './records.js'
import type {
  AccountChangeRequest,
  AddPasswordOutcome,
  AddPasswordRequest,
  CreateAccountOutcome,
  CreateAccountRequest,
  DeleteAccountOutcome,
  FindPasswordQuery,
  IssueInviteRequest,
  RemoveSignInMethodOutcome,
  SetAccountStatusRequest,
  SetPasswordRequest,
} from './requests.js'

/** The account record itself: its epoch and status, its methods, and its end. */
export interface AccountRecords {
  /** The account, or null. Read on every request whose security epoch is not cached: keep it cheap. */
  getAccount(accountId: string): Promise<Account | null>
  /** Every sign-in method of the account (password first, then identities by provider); empty when unknown. */
  listSignInMethods(accountId: string): Promise<readonly SignInMethod[]>
  /** Increments the security epoch; the new epoch, or null for an unknown account. */
  bumpSecurityEpoch(request: AccountChangeRequest): Promise<number | null>
  /**
   * Enables or disables the account; disabling also increments the security epoch. The account after
   * the change, or null for an unknown account.
   */
  setAccountStatus(request: SetAccountStatusRequest): Promise<Account | null>
  /**
   * Removes, in one transaction, the account, its sign-in methods, and everything of it the store's
   * schema holds: sessions, refresh-token families, step-up credentials, API keys it owns, the token
   * vault rows of its identities, its TOTP enrollment and recovery codes, passkeys and pending passkey
   * challenges and its email addresses. Refused (`tokens-retained`, nothing deleted) while an identity still
   * holds provider tokens: stage their revocation first. Staged revocation retries are kept.
   */
  deleteAccount(request: AccountChangeRequest): Promise<DeleteAccountOutcome>
}

/** The password sign-in method (at most one per account) and single-use invites. */
export interface PasswordMethods {
  /**
   * Password sign-up: creates an account (security epoch 1) with its password method in one transaction.
   * With an invite, the invite is checked first and consumed in the same transaction. A stored
   * `accountId` is `local.store_duplicate`.
   */
  createAccount(request: CreateAccountRequest): Promise<CreateAccountOutcome>
  /**
   * The password method with this (normalized) username, of this account, or of the account holding
   * this (normalized) address verified; null when there is none (an unverified address finds nobody).
   */
  findPassword(query: FindPasswordQuery): Promise<PasswordRecord | null>
  /**
   * Replaces the password hash of an account that has a password and returns the updated record; null
   * when it has none or `expectedPasswordHash` no longer matches (a rehash loses safely to a change).
   */
  setPassword(request: SetPasswordRequest): Promise<PasswordRecord | null>
  /** Adds a password method to an existing account that has none (an account made by a provider sign-in). */
  addPassword(request: AddPasswordRequest): Promise<AddPasswordOutcome>
  /**
   * Removes the password method and increments the security epoch, unless it is the account's last way
   * to sign in (`final-method`, nothing changes). Counted under the account's lock, so this and a
   * concurrent unlink of the last identity never both succeed.
   */
  removePassword(request: AccountChangeRequest): Promise<RemoveSignInMethodOutcome>
  /** Stores a single-use invite; a stored digest is `local.store_duplicate`. */
  issueInvite(request: IssueInviteRequest): Promise<void>
}

/**
 * The email addresses of an account. A verified address belongs to one account at most, and the store
 * enforces it under concurrency (two instances verifying one address for two accounts: one wins); an
 * unverified address blocks nobody (several accounts may hold it). Each change is one transaction under
 * the account's lock. Addresses are never created, linked or matched by a provider sign-in.
 */
export interface EmailAddresses {
  /** The account's addresses, primary first, then oldest first; empty for an unknown account. */
  listEmailAddresses(accountId: string): Promise<readonly EmailAddress[]>
  /** The account holding this (normalized) address verified, or null: an unverified one finds nobody. */
  findAccountByVerifiedEmail(address: string): Promise<Account | null>
  /** Adds an unverified address (the account's first is its primary). The epoch does not move. */
  addEmailAddress(request: EmailAddressRequest): Promise<AddEmailAddressOutcome>
  /**
   * Marks the address verified, unless another account verified it first (`taken`); optionally makes it
   * primary in the same transaction. Verifying never moves the epoch; a change of primary does.
   */
  verifyEmailAddress(request: VerifyEmailAddressRequest): Promise<VerifyEmailAddressOutcome>
  /** Makes a verified address the primary one; a change moves the security epoch. */
  setPrimaryEmailAddress(request: EmailAddressRequest): Promise<SetPrimaryEmailAddressOutcome>
  /**
   * Removes an address: never the primary while others remain, never the account's last way to sign in
   * (see `signInWith`). Removing a verified address moves the security epoch.
   */
  removeEmailAddress(request: RemoveEmailAddressRequest): Promise<RemoveEmailAddressOutcome>
}

/** Which provider registration a provider-identity view of the store serves. */
export interface OAuthStoreRegistration {
  readonly provider: string
  readonly clientId: string
  /** Retained tokens and revocation retries are only ever kept as this protector's envelopes. */
  readonly protector: OAuthTransactionProtector
}

/**
 * The durable boundary of accounts: one account record per person with its sign-in methods as rows of
 * their own (a password, each provider identity), one security epoch, over one schema that local
 * accounts (`LocalAccounts({ accounts })`) and the OAuth lifecycle (`oauth(registration)`, one view per
 * provider registration) share. Every operation that changes an account or its methods is one
 * transaction: password sign-up, provider provisioning, link, unlink, adding, changing and removing a
 * password, adding, verifying and removing email addresses, status changes and deletion. The last
 * sign-in method can never be removed.
 */
export interface AccountStore extends AccountRecords, PasswordMethods, EmailAddresses {
  /**
   * The provider-identity view of this store for one provider registration: linking, provisioning on
   * first sign-in, the token vault and revocation retries, all over this store's accounts.
   */
  oauth(registration: OAuthStoreRegistration): OAuthAccountStore
}
