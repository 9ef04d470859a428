// OpenID Connect and OAuth providers: SSRF-safe discovery, provider presets, GitHub, and the lifecycle
// (login, link, scope upgrade, revalidate, reauthenticate, unlink, token revocation, logout).
export type { AddressClass } from './addresses.js'
export { classifyAddress } from './addresses.js'
export type { BackchannelLogoutOptions, BackchannelLogoutResult } from './backchannel-logout.js'
export { BackchannelLogout } from './backchannel-logout.js'
export type {
  DiscoverOidcProviderOptions,
  OIDCClientAuthentication,
  OidcProviderCommonOptions,
} from './discover.js'
export { discoverOidcProvider } from './discover.js'
export type { OIDCDiscoverOptions, OIDCDiscoveryClientOptions } from './discovery-client.js'
export { OIDCDiscoveryClient } from './discovery-client.js'
export type { OIDCErrorCode, OIDCErrorOptions } from './errors.js'
export { OIDCError, OIDCErrorCodes, OIDCProviderUnavailableError } from './errors.js'
export type { GitHubOAuthProviderOptions } from './github.js'
export { GITHUB_ISSUER, GitHubOAuthProvider } from './github.js'
export type { OAuthLifecycleServiceOptions, StepUpAuthorizedInput } from './lifecycle.js'
export { OAuthLifecycleService } from './lifecycle.js'
export type {
  BeginOAuthInput,
  CompleteOAuthInput,
  LocalSession,
  OAuthCallbackOutcome,
} from './lifecycle-types.js'
export { OAUTH_STEP_UP_PURPOSES, OAuthBeginResult } from './lifecycle-types.js'
export type { VerifiedLogoutToken } from './logout-token.js'
export { BACKCHANNEL_LOGOUT_EVENT } from './logout-token.js'
export type { OIDCProviderMetadata } from './metadata.js'
export { OIDCProvider } from './oidc-provider.js'
export type { HostResolver, OIDCFetch } from './outbound-http.js'
export { OIDCRequestError } from './outbound-http.js'
export type {
  Auth0OidcProviderOptions,
  GoogleOidcProviderOptions,
  KeycloakOidcProviderOptions,
  MicrosoftOidcProviderOptions,
  OktaOidcProviderOptions,
} from './presets.js'
export {
  discoverAuth0OidcProvider,
  discoverGoogleOidcProvider,
  discoverKeycloakOidcProvider,
  discoverMicrosoftOidcProvider,
  discoverOktaOidcProvider,
  GOOGLE_ISSUER,
  MICROSOFT_CONSUMER_TENANT,
} from './presets.js'
export type {
  OAuthIdentityProvider,
  ProviderAuthorizationRequest,
  ProviderCallbackRequest,
  ProviderCallbackResult,
  VerifiedProviderIdentity,
} from './provider-types.js'
export type { OIDCReauthenticationPolicy, OIDCReauthenticationRequirement } from './reauthentication.js'
export type {
  GitHubProviderRegistration,
  OAuthProviderRegistration,
  OIDCProviderRegistration,
} from './registration.js'
