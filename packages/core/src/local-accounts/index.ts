export type { LocalAuthErrorCode, LocalAuthErrorOptions } from './auth-errors.js'
export { LocalAuthError } from './auth-errors.js'
export type { LocalAccountErrorCode } from './errors.js'
export { LocalAccountError, PasswordHashingBusyError } from './errors.js'
export { establishLocalSignIn, LocalAccounts } from './local-accounts.js'
export type {
  LocalAccountsOptions,
  LocalAuthProfile,
  LocalRateLimitOptions,
  LocalRevocationOptions,
  LocalSessionOptions,
  LocalTokenOptions,
  LocalTransport,
  LoginRateLimit,
  RegistrationPolicy,
} from './local-accounts-options.js'
export type { LocalCredentials, LocalSessionView } from './local-credentials.js'
export { localCredentialsOf } from './local-credentials.js'
export { LocalStepUp } from './local-step-up.js'
export {
  DEFAULT_OPAQUE_TOKEN_BYTES,
  digestOpaqueToken,
  MIN_OPAQUE_TOKEN_BYTES,
  newOpaqueToken,
} from './opaque-token.js'
export type { BlocklistPasswordScreenOptions } from './passwords/blocklist-screen.js'
export { blocklistPasswordScreen } from './passwords/blocklist-screen.js'
export type {
  BoundedPasswordHasher,
  BoundedPasswordHasherOptions,
} from './passwords/bounded-password-hasher.js'
export { boundedPasswordHasher } from './passwords/bounded-password-hasher.js'
export type { DummyHash, DummyHashOptions } from './passwords/dummy-hash.js'
export { dummyHash } from './passwords/dummy-hash.js'
export type { PasswordHasher, PasswordRules } from './passwords/password.js'
export {
  DEFAULT_MAX_PASSWORD_BYTES,
  DEFAULT_MIN_PASSWORD_LENGTH,
  MAX_PASSWORD_BYTES_LIMIT,
  passwordRules,
  validatePassword,
} from './passwords/password.js'
export type {
  PasswordScreen,
  PasswordScreenContext,
  PasswordScreenPurpose,
  PasswordScreenReason,
  PasswordScreenVerdict,
} from './passwords/password-screen.js'
export {
  PASSWORD_ACCEPTED,
  refusedByContext,
  screeningForm,
  screenNewPassword,
  withoutContext,
} from './passwords/password-screen.js'
export type { RangePasswordScreenOptions, RangeUnavailableReason } from './passwords/range-screen.js'
export {
  countInRange,
  DEFAULT_RANGE_ENDPOINT,
  rangeParts,
  rangePasswordScreen,
} from './passwords/range-screen.js'
export type { SecurityNoticeSource } from './passwords/security-notices.js'
export { MAX_USERNAME_LENGTH, normalizeUsername } from './passwords/username.js'
export type { ProviderSession, ProviderSessionMatch } from './provider-session.js'
export type { ClientAddressInput } from './rate-limits/client-address.js'
export {
  MAX_FORWARDED_HOPS,
  parseTrustedProxies,
  resolveClientAddress,
  TrustedProxies,
} from './rate-limits/client-address.js'
export type { MemoryRateLimitStoreOptions } from './rate-limits/memory-rate-limit-store.js'
export { MemoryRateLimitStore } from './rate-limits/memory-rate-limit-store.js'
export type { ClientRateLimitKeyOptions } from './rate-limits/rate-limit-key.js'
export {
  clientRateLimitKey,
  DEFAULT_IPV6_PREFIX_LENGTH,
  UNKNOWN_CLIENT_RATE_LIMIT_KEY,
} from './rate-limits/rate-limit-key.js'
export type {
  ConsumeRateLimitRequest,
  RateLimitDecision,
  RateLimitStore,
} from './rate-limits/rate-limit-store.js'
export {
  MAX_RATE_LIMIT,
  MAX_RATE_LIMIT_WINDOW_SECONDS,
  rateLimitDecision,
  requireRateLimitKey,
  validateConsumeRateLimit,
} from './rate-limits/rate-limit-store.js'
export type {
  SecondFactorCompletion,
  SecondFactorContext,
  SecondFactorGate,
  SecondFactorStart,
} from './second-factor.js'
export { PendingSecondFactor } from './second-factor.js'
export type {
  EpochBumpReason,
  LoginFailureReason,
  PasskeyFailureReason,
  SecurityEvent,
  SecurityEventFields,
  SecurityEventSink,
  SecurityEventSinkErrorHandler,
  SecurityEventType,
  SessionRevocationReason,
} from './security-events.js'
export { emitSecurityEvent } from './security-events.js'
export type { CsrfCheckInput, CsrfDecision, CsrfRefusalReason } from './sessions/csrf.js'
export { assertCsrf, CsrfRefusedError, checkCsrf, csrfTokenForSession } from './sessions/csrf.js'
export type { CsrfSeed, LocalCsrfInput } from './sessions/local-csrf.js'
export { LocalCsrf } from './sessions/local-csrf.js'
export type { MemorySessionStoreOptions } from './sessions/memory-session-store.js'
export { MemorySessionStore } from './sessions/memory-session-store.js'
export type { SessionCookie, SessionCookieOptions, SessionCookieRead } from './sessions/session-cookie.js'
export {
  clearSessionCookie,
  readSessionCookie,
  serializeSessionCookie,
  sessionCookie,
} from './sessions/session-cookie.js'
export {
  ACTIVE_ORGANIZATION_ATTRIBUTE,
  CSRF_TOKEN_HEADER,
  SECURITY_EPOCH_ATTRIBUTE,
  SESSION_HANDLE_ATTRIBUTE,
} from './sessions/session-mechanism.js'
export type {
  CreateSessionRequest,
  ListSessionsRequest,
  RevokeSessionsRequest,
  SessionRecord,
  SessionStore,
  SessionWithAccountEpoch,
  SetActiveOrganizationRequest,
  TouchSessionRequest,
  ValidatedSessionRevocation,
} from './sessions/session-store.js'
export {
  isSessionLive,
  sessionRecord,
  validateCreateSession,
  validateGetSession,
  validateListSessions,
  validateRevokeSessions,
  validateSessionRecord,
  validateSetActiveOrganization,
  validateTouchSession,
} from './sessions/session-store.js'
export type {
  EstablishSignInRequest,
  LocalRequestInfo,
  LocalSignIn,
  SessionSignIn,
  SignInOptions,
  TokenSignIn,
} from './sign-in.js'
export type { LocalStoreErrorCode } from './store-errors.js'
export { LocalStoreError, LocalStoreErrorCodes } from './store-errors.js'
export {
  MAX_PASSWORD_HASH_LENGTH,
  MAX_RATE_LIMIT_KEY_LENGTH,
  MAX_SESSION_CLIENT_ADDRESS_LENGTH,
  MAX_SESSION_USER_AGENT_LENGTH,
  MAX_STORE_ID_LENGTH,
} from './store-input.js'
export type {
  IssueAccessTokenRequest,
  IssuedAccessToken,
} from './tokens/access-token.js'
export {
  issueAccessToken,
  localAccessTokenProfile,
  SECURITY_EPOCH_CLAIM,
  SESSION_HANDLE_CLAIM,
} from './tokens/access-token.js'
export { TOKEN_FAMILY_ATTRIBUTE } from './tokens/access-token-mechanism.js'
export type { LocalJWKSProviderOptions } from './tokens/local-jwks-provider.js'
export { LocalJWKSProvider } from './tokens/local-jwks-provider.js'
export type { MemoryRefreshTokenStoreOptions } from './tokens/memory-refresh-token-store.js'
export { MemoryRefreshTokenStore } from './tokens/memory-refresh-token-store.js'
export type {
  CreateRefreshFamilyRequest,
  RefreshFamilyRecord,
  RefreshTokenInput,
  RefreshTokenStore,
  RevokeAccountRefreshFamiliesRequest,
  RevokeRefreshFamilyRequest,
  RotateRefreshTokenOutcome,
  RotateRefreshTokenRequest,
} from './tokens/refresh-token-store.js'
export {
  refreshFamilyRecord,
  validateCreateRefreshFamily,
  validateRevokeAccountRefreshFamilies,
  validateRevokeRefreshFamily,
  validateRotateRefreshToken,
} from './tokens/refresh-token-store.js'
export type {
  GenerateLocalSigningKeyOptions,
  LocalPrivateJWK,
  LocalPublicJWK,
  LocalSigningAlgorithm,
} from './tokens/signing-key.js'
export { generateLocalSigningKey, importLocalSigningKey, LocalSigningKey } from './tokens/signing-key.js'
export type {
  LocalJWKSDocument,
  LocalSigningKeyRingExport,
  LocalSigningKeyRingOptions,
  RetiredLocalSigningKey,
} from './tokens/signing-key-ring.js'
export { importLocalSigningKeyRing, LocalSigningKeyRing } from './tokens/signing-key-ring.js'
