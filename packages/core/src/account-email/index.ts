// The account flows that go through a person's mail: sign-up with verification, email verification,
// password reset, email change, sign-in by code and security notifications. Framework-neutral; the
// HTTP routes are `accountEmailRouteTable` of `@portcullis/http/account-email`.

export type { SteppedUpAddressRequest } from './account-email.js'
export { AccountEmail } from './account-email.js'
export type {
  AccountEmailOptions,
  EmailFlowPages,
  EmailFlowRateLimit,
  EmailFlowRateLimits,
  PasswordResetSettings,
} from './account-email-options.js'
export { ACCOUNT_EMAIL_OPTIONS } from './account-email-options.js'
export type { AddressVerifiedEvent, AddressVerifiedListener } from './address-verified.js'
export type { AccountAddressView, AddedAddress, ChangedAddresses } from './addresses.js'
export { ADDRESS_STEP_UP_PURPOSE } from './addresses.js'
export type { EmailChangeOptions, SignInCodeOptions } from './change-options.js'
export type { CompletedEmailChange } from './email-change.js'
export { EMAIL_CHANGE_STEP_UP_PURPOSE } from './email-change.js'
export type { AccountEmailErrorCode, AccountEmailErrorOptions } from './errors.js'
export { AccountEmailError, AccountEmailErrorCodes } from './errors.js'
export type { AccountEmailParts } from './flow-context.js'
export type {
  NotificationRecipients,
  NotificationSettingsView,
  SecurityNotifierOptions,
} from './notifications.js'
export { SecurityNotifier } from './notifications.js'
export type { ResetCompleted, ResetOptions, ResetPendingSecondFactor } from './password-reset.js'
export type { ResetPendingPasskey } from './reset-passkey.js'
export type { SignUpAccepted } from './sign-up.js'
