import type {
  Account,
  AccountChangeRequest,
  AccountDirectory,
  AccountSearchHit,
  AccountSearchQuery,
  AccountStore,
  AddEmailAddressOutcome,
  AddPasswordOutcome,
  AddPasswordRequest,
  CreateAccountOutcome,
  CreateAccountRequest,
  DeleteAccountOutcome,
  EmailAddress,
  EmailAddressRequest,
  FindPasswordQuery,
  IssueInviteRequest,
  OAuthStoreRegistration,
  PasswordRecord,
  RemoveEmailAddressOutcome,
  RemoveEmailAddressRequest,
  RemoveSignInMethodOutcome,
  SetAccountStatusRequest,
  SetPasswordRequest,
  SetPrimaryEmailAddressOutcome,
  SignInMethod,
  VerifyEmailAddressOutcome,
  VerifyEmailAddressRequest,
} from '@portcullis/core/accounts'
import { type LocalStoreClient, type LocalStoreContext, storeContext } from '../local-accounts/client.js'
import { PostgresOAuthAccountStore } from '../oauth-accounts/store.js'
import { deleteAccount } from './deletion.js'
import * as emails from './emails.js'
import * as passwords from './passwords.js'
import * as records from './records.js'
import { searchAccounts } from './search.js'

export interface PostgresAccountStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
}

/**
 * The durable `AccountStore`: one `portcullis_accounts` row per person with its sign-in methods as rows of
 * their own (`portcullis_passwords`, `portcullis_oauth_links`) and its email addresses
 * (`portcullis_email_addresses`, a verified address unique by a partial index). Every change of an account and its methods
 * is one transaction that locks the account row first (`SELECT ... FOR UPDATE`), so the method count that
 * keeps the last method is read under the same lock that removes one; epoch increments are
 * `security_epoch = security_epoch + 1`, so none is lost. `oauth(...)` gives the provider view
 * (`PostgresOAuthAccountStore`) over the same tables; stores on several instances share them.
 */
export class PostgresAccountStore implements AccountStore, AccountDirectory {
  readonly #context: LocalStoreContext
  readonly #client: LocalStoreClient
  /**
   * Status changes, epoch moves, password removals and deletions write a request's `securityLog`
   * entries in their transaction, into the security log of the same database (`WithSecurityLog`).
   */
  readonly securityLogInTransaction = true

  constructor(options: PostgresAccountStoreOptions) {
    this.#context = storeContext(options, 'PostgresAccountStore')
    this.#client = options.client
  }

  oauth(registration: OAuthStoreRegistration): PostgresOAuthAccountStore {
    return new PostgresOAuthAccountStore({ client: this.#client, ...registration })
  }

  getAccount(accountId: string): Promise<Account | null> {
    return records.getAccount(this.#context, accountId)
  }

  listSignInMethods(accountId: string): Promise<readonly SignInMethod[]> {
    return records.listSignInMethods(this.#context, accountId)
  }

  bumpSecurityEpoch(request: AccountChangeRequest): Promise<number | null> {
    return records.bumpSecurityEpoch(this.#context, request)
  }

  setAccountStatus(request: SetAccountStatusRequest): Promise<Account | null> {
    return records.setAccountStatus(this.#context, request)
  }

  deleteAccount(request: AccountChangeRequest): Promise<DeleteAccountOutcome> {
    return deleteAccount(this.#context, request)
  }

  createAccount(request: CreateAccountRequest): Promise<CreateAccountOutcome> {
    return passwords.createAccount(this.#context, request)
  }

  findPassword(query: FindPasswordQuery): Promise<PasswordRecord | null> {
    return passwords.findPassword(this.#context, query)
  }

  setPassword(request: SetPasswordRequest): Promise<PasswordRecord | null> {
    return passwords.setPassword(this.#context, request)
  }

  addPassword(request: AddPasswordRequest): Promise<AddPasswordOutcome> {
    return passwords.addPassword(this.#context, request)
  }

  removePassword(request: AccountChangeRequest): Promise<RemoveSignInMethodOutcome> {
    return passwords.removePassword(this.#context, request)
  }

  issueInvite(request: IssueInviteRequest): Promise<void> {
    return passwords.issueInvite(this.#context, request)
  }

  /** One indexed statement per search (see `AccountDirectory`). */
  searchAccounts(query: AccountSearchQuery): Promise<readonly AccountSearchHit[]> {
    return searchAccounts(this.#context, query)
  }

  listEmailAddresses(accountId: string): Promise<readonly EmailAddress[]> {
    return emails.listEmailAddresses(this.#context, accountId)
  }

  findAccountByVerifiedEmail(address: string): Promise<Account | null> {
    return emails.findAccountByVerifiedEmail(this.#context, address)
  }

  addEmailAddress(request: EmailAddressRequest): Promise<AddEmailAddressOutcome> {
    return emails.addEmailAddress(this.#context, request)
  }

  verifyEmailAddress(request: VerifyEmailAddressRequest): Promise<VerifyEmailAddressOutcome> {
    return emails.verifyEmailAddress(this.#context, request)
  }

  setPrimaryEmailAddress(request: EmailAddressRequest): Promise<SetPrimaryEmailAddressOutcome> {
    return emails.setPrimaryEmailAddress(this.#context, request)
  }

  removeEmailAddress(request: RemoveEmailAddressRequest): Promise<RemoveEmailAddressOutcome> {
    return emails.removeEmailAddress(this.#context, request)
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresAccountStore {}'
  }
}
