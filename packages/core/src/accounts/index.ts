// One account per person: the account record with its sign-in methods as rows of their own, the store
// port local accounts and OAuth share, and the account operations (step-up by password, adding and
// removing the password, deletion).
export type { ProviderTokenRevocations } from './deletion.js'
export type {
  AccountDirectory,
  AccountSearchField,
  AccountSearchHit,
  AccountSearchQuery,
  ValidatedAccountSearch,
} from './directory.js'
export {
  accountSearchHit,
  compareSearchHits,
  DEFAULT_ACCOUNT_SEARCH_LIMIT,
  MAX_ACCOUNT_SEARCH_LIMIT,
  MAX_ACCOUNT_SEARCH_PREFIX,
  validateAccountSearch,
} from './directory.js'
export type {
  EmailAddressNormalization,
  EmailAddressRefusal,
} from './email-address.js'
export {
  EMAIL_ADDRESS_INVALID,
  EmailAddressError,
  isNormalizedEmailAddress,
  MAX_EMAIL_ADDRESS_OCTETS,
  MAX_LOCAL_PART_OCTETS,
  normalizeEmailAddress,
} from './email-address.js'
export type {
  AddEmailAddressOutcome,
  EmailAddress,
  EmailAddressRequest,
  RemoveEmailAddressOutcome,
  RemoveEmailAddressRequest,
  SetPrimaryEmailAddressOutcome,
  SignInIdentifier,
  VerifyEmailAddressOutcome,
  VerifyEmailAddressRequest,
} from './email-requests.js'
export {
  emailAddressList,
  emailAddressRecord,
  MAX_EMAIL_ADDRESSES_PER_ACCOUNT,
  removalLeavesNoWayIn,
  requireNormalizedEmailAddress,
  validateEmailAddressRequest,
  validateRemoveEmailAddress,
  validateVerifyEmailAddress,
} from './email-requests.js'
export type { AccountErrorCode } from './errors.js'
export { AccountError, AccountErrorCodes } from './errors.js'
export type { MemoryAccountStoreOptions } from './memory-store.js'
export { MemoryAccountStore } from './memory-store.js'
export type { MemoryAccountData, MemorySignInMethods } from './memory-tables.js'
export type {
  AccountRecords,
  AccountStore,
  EmailAddresses,
  OAuthStoreRegistration,
  PasswordMethods,
} from './port.js'
export type {
  Account,
  AccountStatus,
  IdentitySignInMethod,
  PasskeySignInMethod,
  PasswordRecord,
  PasswordSignInMethod,
  SignInMethod,
} from './records.js'
export { accountRecord, passwordRecord, signInMethods } from './records.js'
export type {
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
export {
  validateAccountChange,
  validateAccountId,
  validateAddPassword,
  validateCreateAccount,
  validateFindPassword,
  validateIssueInvite,
  validateSetAccountStatus,
  validateSetPassword,
} from './requests.js'
export type {
  AccountOverview,
  AccountServiceOptions,
  AccountSession,
  RenewedSignIn,
} from './service.js'
export { ACCOUNT_STEP_UP_PURPOSES, AccountService } from './service.js'
