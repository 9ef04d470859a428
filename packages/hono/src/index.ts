// The whole public API of @portcullis/hono: the adapter itself (security, its middleware and route
// options, problem helpers, the health route), plus every name of the `./accounts`, `./mcp`,
// `./local-accounts`, `./oauth`, `./passkeys`, `./totp` and `./fetch` subpaths re-exported unchanged
// (those subpaths stay for narrow imports).
export type { HealthCheck, HealthRouteOptions } from '@portcullis/http/health'
export type { ProblemBody, ProblemInit } from '@portcullis/http/problem'
export { HttpProblem, problemBody, problemFor, problems, retryAfterFor } from '@portcullis/http/problem'
export type { OperationDocumentation, RegisteredRoute, RouteOptions } from '@portcullis/http/routing'
export type { OpenApiConfig, RejectionEvent, StepUpConfig } from '@portcullis/http/security'
export type { AccountEmailRoutesOptions } from './account-email/index.js'
export { accountEmailRoutes } from './account-email/index.js'
export type { AccountRoutesOptions } from './accounts/index.js'
export { createAccountRoutes } from './accounts/index.js'
export type { ActivityRoutesOptions } from './activity/index.js'
export { activityRoutes } from './activity/index.js'
export type { AdministrationRoutesOptions } from './administration/index.js'
export { administrationRoutes } from './administration/index.js'
export { limitBody } from './body/limit-body.js'
export type {
  FetchRoute,
  FetchRouteContext,
  FetchRouteHandler,
  FetchSecurity,
  FetchSecurityOptions,
  ForwardedClientAddressOptions,
  WebClientAddress,
} from './fetch/index.js'
export {
  createFetchSecurity,
  forwardedClientAddress,
  headerClientAddress,
  nodeSocketClientAddress,
  readBody,
} from './fetch/index.js'
export { healthRoute } from './health/health-route.js'
export type { ImpersonationRoutesOptions } from './impersonation/index.js'
export { impersonationRoutes } from './impersonation/index.js'
export type { EpochChange, LocalAccountRoutes, LocalAccountRoutesOptions } from './local-accounts/index.js'
export { LOCAL_ACCOUNTS_MAX_BODY_BYTES, localAccountRoutes } from './local-accounts/index.js'
export type {
  MCPEndpointOptions,
  MCPResourceMark,
  MCPResourceMarkOptions,
  ProtectedResourceOptions,
  SkillsOptions,
} from './mcp/index.js'
export { markOf, mcpEndpoint, mcpResource } from './mcp/index.js'
export type {
  CurrentSession,
  OAuthCookieOptions,
  OAuthEpochChange,
  OAuthRoutesOptions,
  OAuthSignIn,
} from './oauth/index.js'
export {
  createOAuthRoutes,
  currentLocalSession,
  localSessionOf,
  OAUTH_MAX_BODY_BYTES,
  OAUTH_NOT_FOUND,
  OAuthBindingCookie,
  StepUpCookies,
} from './oauth/index.js'
export type {
  ActiveOrganizationRoutesOptions,
  OrganizationDomainRoutesOptions,
  OrganizationRoutesOptions,
} from './organizations/index.js'
export {
  createActiveOrganizationRoutes,
  createOrganizationDomainRoutes,
  createOrganizationRoutes,
} from './organizations/index.js'
export type { PasskeyRoutesOptions } from './passkeys/index.js'
export {
  PASSKEY_BINDING_COOKIE,
  PASSKEY_REGISTER_PURPOSE,
  PASSKEY_REMOVE_PURPOSE,
  passkeyRoutes,
} from './passkeys/index.js'
export { honoProblemFor, problemErrorHandler, sendProblem } from './problem/problems.js'
export type { HonoSecurity, HonoSecurityOptions } from './security/create-security.js'
export { createSecurity } from './security/create-security.js'
export { requirePrincipal, securityOf } from './security/request-context.js'
export type { HonoApp, HonoHandler } from './security/route-marks.js'
export type { AnyHono, PortcullisEnv } from './security/types.js'
export type { TotpRoutesOptions } from './totp/index.js'
export {
  TOTP_DISABLE_PURPOSE,
  TOTP_ENROLL_PURPOSE,
  TOTP_RECOVERY_CODES_PURPOSE,
  totpRoutes,
} from './totp/index.js'
