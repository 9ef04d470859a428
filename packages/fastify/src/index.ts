// The whole public API of @portcullis/fastify: the adapter itself (the plugin, its options and
// decoration, the health route, problem helpers, the route options it reads), plus every name of the
// `./accounts`, `./mcp`, `./local-accounts`, `./oauth`, `./passkeys` and `./totp` subpaths re-exported
// unchanged (those subpaths stay for narrow imports). test/public-api.test.ts checks that this list and
// the subpaths agree.
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
export { fastifyProblemFor, problemErrorHandler, sendProblem } from './problem/send-problem.js'
export { portcullis } from './security/plugin.js'
export type { FastifySecurity, FastifySecurityOptions } from './security/plugin-options.js'
export { requirePrincipal, securityOf } from './security/request-context.js'
export type { PortcullisServerOptions } from './server/server-options.js'
export {
  PORTCULLIS_MAX_PARAM_LENGTH,
  portcullisFrameworkErrors,
  portcullisServerOptions,
} from './server/server-options.js'
export type { TotpRoutesOptions } from './totp/index.js'
export {
  TOTP_DISABLE_PURPOSE,
  TOTP_ENROLL_PURPOSE,
  TOTP_RECOVERY_CODES_PURPOSE,
  totpRoutes,
} from './totp/index.js'
