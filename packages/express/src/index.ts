// The whole public API of @portcullis/express: the adapter itself, plus every name of the `./mcp` subpath
// re-exported unchanged (that subpath stays for narrow imports). No name of the adapter and of a subpath
// clash; test/public-api.test.ts checks that this list and the subpaths agree. Names that are not
// Express's own come from the framework-neutral layer, `@portcullis/http`, unchanged.

export type { SecurityHeaderOverrides } from '@portcullis/http/headers'
export { securityHeaderBaseline } from '@portcullis/http/headers'
export type { ProblemBody, ProblemInit } from '@portcullis/http/problem'
export { HttpProblem, problemBody, problemFor, problems, retryAfterFor } from '@portcullis/http/problem'
export type {
  HttpMethod,
  OperationDocumentation,
  ParsedRoutePath,
  RegisteredRoute,
  RouteListener,
  RouteOptions,
} from '@portcullis/http/routing'
export { parseRoutePath, RouteRegistry } from '@portcullis/http/routing'
export type { AccountEmailRoutesOptions } from './account-email/index.js'
export { accountEmailRoutes } from './account-email/index.js'
export type { AccountRoutesOptions } from './accounts/index.js'
export { createAccountRoutes } from './accounts/index.js'
export type { ActivityRoutesOptions } from './activity/index.js'
export { activityRoutes } from './activity/index.js'
export type { AdministrationRoutesOptions } from './administration/index.js'
export { administrationRoutes } from './administration/index.js'
export type { HealthCheck, HealthRouteOptions } from './health/health-route.js'
export { mountHealthRoute } from './health/health-route.js'
export type { ImpersonationRoutesOptions } from './impersonation/index.js'
export { impersonationRoutes } from './impersonation/index.js'
export type { LocalAccountRoutes, LocalAccountRoutesOptions } from './local-accounts/index.js'
export { LOCAL_ACCOUNTS_MAX_BODY_BYTES, localAccountRoutes } from './local-accounts/index.js'
export type {
  DiscoveredRoute,
  MCPEndpoint,
  MCPEndpointOptions,
  MCPResourceMark,
  MCPResourceMarkOptions,
  MCPRouteDeclaration,
  MCPRouteOptions,
  ProtectedResourceOptions,
  ResourceApp,
  ResourceRoutePath,
  SetupOptions,
  SkillsOptions,
} from './mcp/index.js'
export { createMCPEndpoint, discoverRoutes, markOf, mcpResource } from './mcp/index.js'
export type { CurrentSession, OAuthCookieOptions, OAuthRoutesOptions, OAuthSignIn } from './oauth/index.js'
export {
  createOAuthRoutes,
  currentLocalSession,
  localSessionOf,
  OAUTH_NOT_FOUND,
  OAuthBindingCookie,
  StepUpCookies,
} from './oauth/index.js'
export type { OpenApiDocument, OpenApiInfo, OpenApiServer } from './openapi/document.js'
export { buildOpenApiDocument } from './openapi/document.js'
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
export { problemErrorHandler } from './problem/error-handler.js'
export { sendProblem } from './problem/send-problem.js'
export type {
  ContextFor,
  RouteMethod,
  SecuredHandler,
  SecuredRequest,
  SecureRouter,
  SecureRouterOptions,
} from './routing/secure-router.js'
export type { OpenApiConfig, RejectionEvent, SecurityConfig, StepUpConfig } from './security/config.js'
export type { Security } from './security/create-security.js'
export { createSecurity } from './security/create-security.js'
export { credentialSource } from './security/credential-source.js'
export { requirePrincipal, securityOf } from './security/request-context.js'
export type { TotpRoutesOptions } from './totp/index.js'
export {
  TOTP_DISABLE_PURPOSE,
  TOTP_ENROLL_PURPOSE,
  TOTP_RECOVERY_CODES_PURPOSE,
  totpRoutes,
} from './totp/index.js'
