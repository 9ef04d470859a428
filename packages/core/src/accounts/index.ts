// One account per person: the account record with its sign-in methods as rows of their own, the store
// port local accounts and OAuth share, and the account operations (step-up by password, adding and
// removing the password, deletion).
export type { ProviderTokenRevocations } from './deletion.js'
export type { AccountErrorCode } from './errors.js'
export { AccountError, AccountErrorCodes } from './errors.js'
export type { MemoryAccountStoreOptions } from './memory-store.js'
export { MemoryAccountStore } from './memory-store.js'
export type { MemoryAccountData, MemorySignInMethods } from './memory-tables.js'
export type { AccountRecords, AccountStore, OAuthStoreRegistration, PasswordMethods } from './port.js'
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
