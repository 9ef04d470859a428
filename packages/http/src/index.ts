// The whole public API of @portcullis/http: every name of every subpath, re-exported unchanged (the
// subpaths stay for narrow imports). test/public-api.test.ts checks that this list and the subpaths agree.
export { ACCOUNT_EMAIL_ROUTE_DOCS, EMAIL_DOCS } from './account-email/openapi.js'
export type { AccountEmailRouteContext, AccountEmailRouteTableOptions } from './account-email/routes.js'
export {
  ACCOUNT_EMAIL_HEADERS,
  ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS,
  accountEmailRouteTable,
} from './account-email/routes.js'
export { accountLocalPath, fieldsOf, methodBody } from './accounts/index.js'
export { ACCOUNT_ROUTE_DOCS } from './accounts/openapi.js'
export type { AccountRouteTableOptions } from './accounts/routes.js'
export { ACCOUNT_ROUTE_TABLE_OPTIONS, accountRouteTable } from './accounts/routes.js'
export { ACTIVITY_ROUTE_DOCS } from './activity/openapi.js'
export type { ActivityRouteTableOptions } from './activity/routes.js'
export {
  ACTIVITY_HEADERS,
  ACTIVITY_PAGE_DEFAULT,
  ACTIVITY_ROUTE_TABLE_OPTIONS,
  activityRouteTable,
  signOutOtherSessions,
} from './activity/routes.js'
export type { SessionBody } from './activity/views.js'
export { activityBody, deviceName, sessionBodies } from './activity/views.js'
export { accountViewBody, outcomeBody, searchHitBody } from './administration/bodies.js'
export { ADMINISTRATION_ROUTE_DOCS } from './administration/openapi.js'
export type { AdministrationRouteTableOptions } from './administration/routes.js'
export { ADMINISTRATION_ROUTE_TABLE_OPTIONS, administrationRouteTable } from './administration/routes.js'
export type { BodyStream } from './body/body.js'
export {
  LOCAL_ACCOUNTS_MAX_BODY_BYTES,
  parseRequestBody,
  readLimitedBody,
  readRequestBody,
} from './body/body.js'
export {
  BODY_TOO_LARGE_CODE,
  BODY_TOO_LARGE_STATUS,
  bodyTooLargeProblem,
  bodyTooLargeResponse,
  isBodyTooLargeError,
  limitOf,
  withBodyLimitResponses,
} from './body/body-limit.js'
export type { OAuthCookieOptions } from './cookies/cookies.js'
export { OAUTH_COOKIE_OPTIONS, OAuthBindingCookie, StepUpCookies } from './cookies/cookies.js'
export type { HttpAnswer, HttpExchange, NeutralRoute } from './exchange/exchange.js'
export { jsonAnswer, prefersJson, problemAnswer, seeOther } from './exchange/exchange.js'
export type { SecurityHeaderOverrides } from './headers/security-headers.js'
export { securityHeaderBaseline, securityHeaders } from './headers/security-headers.js'
export type { HealthAnswer, HealthCheck, HealthRouteOptions } from './health/health.js'
export { HEALTH_ROUTE_OPTIONS, healthHandler } from './health/health.js'
export { IMPERSONATION_ROUTE_DOCS } from './impersonation/openapi.js'
export type { ImpersonationRouteTableOptions } from './impersonation/routes.js'
export { IMPERSONATION_ROUTE_TABLE_OPTIONS, impersonationRouteTable } from './impersonation/routes.js'
export type { CapturingResponse } from './in-process/capture.js'
export { CAPTURING_METHODS, capturingResponse } from './in-process/capture.js'
export { Deadlined, DeadlineQueue } from './in-process/deadlines.js'
export { resourceProblem, statusOf } from './in-process/resource-problem.js'
export { SyntheticRequest } from './in-process/synthetic-request.js'
export type { CsrfInput } from './local-accounts/csrf.js'
export { localCsrf } from './local-accounts/csrf.js'
export { LOCAL_ROUTE_DOCS } from './local-accounts/openapi.js'
export { localProblem } from './local-accounts/problem.js'
export type { LocalRouteTableOptions } from './local-accounts/routes.js'
export {
  LOCAL_ROUTE_TABLE_OPTIONS,
  localPath,
  localRouteTable,
  sessionBody,
} from './local-accounts/routes.js'
export type { EpochChange, EstablishSignInInput, SignInRequest } from './local-accounts/sign-in.js'
export { establishSignIn, renewSignIn, rotateSession } from './local-accounts/sign-in.js'
export type { DiscoveredRoute, MCPRouteDeclaration } from './mcp/declaration.js'
export { declarationMark } from './mcp/declaration.js'
export type { RouteEndpointOptions } from './mcp/endpoint-options.js'
export { endpointBasics, ROUTE_ENDPOINT_OPTIONS } from './mcp/endpoint-options.js'
export { IN_PROCESS_DROPPED_HEADERS, inProcessHeaders } from './mcp/in-process-headers.js'
export type { AnyHandler, MCPResourceMark, MCPResourceMarkOptions, MCPRouteOptions } from './mcp/marking.js'
export {
  MCP_RESOURCE_MARK_OPTIONS,
  MCP_ROUTE_OPTION_KEYS,
  markFromOptions,
  markOf,
  mcpResource,
} from './mcp/marking.js'
export { minimalOpenApi } from './mcp/openapi-fallback.js'
export type { ProtectedResource, ProtectedResourceOptions } from './mcp/protected-resource.js'
export {
  endpointChallenges,
  PROTECTED_RESOURCE_OPTIONS,
  protectedResource,
  scopesOf,
} from './mcp/protected-resource.js'
export type { DeclaredResource } from './mcp/resource-policy.js'
export { readableBy, resourceCacheScope } from './mcp/resource-policy.js'
export type { BuiltEndpoint, EndpointSecurity, ReadLimits, RouteEndpoint } from './mcp/route-endpoint.js'
export { routeEndpoint } from './mcp/route-endpoint.js'
export type { ResourceRoutePath } from './mcp/route-path.js'
export { joinPaths, parseResourceRoutePath } from './mcp/route-path.js'
export type { PublishingOptions, ResolvedSetup, SkillsOptions } from './mcp/setup.js'
export {
  declaredRoutes,
  loadSkills,
  resolveSetup,
  resourceRoute,
  SERVER_INFO_OPTIONS,
  SKILLS_OPTIONS,
  serverInfoOf,
} from './mcp/setup.js'
export type { MCPAnswer, OriginInput, OriginPolicy } from './mcp/transport.js'
export {
  originRefusal,
  resultAnswer,
  rpcErrorAnswer,
  TRANSPORT_ERROR,
  wantsEventStream,
} from './mcp/transport.js'
export { queryObject } from './oauth/begin-routes.js'
export { OAUTH_NOT_FOUND } from './oauth/http.js'
export type {
  OAuthEpochChange,
  OAuthRouteTableOptions,
  OAuthSignIn,
  StepUpTransport,
} from './oauth/options.js'
export { OAUTH_MAX_BODY_BYTES, OAUTH_ROUTE_OPTIONS } from './oauth/options.js'
export { oauthRouteTable } from './oauth/routes.js'
export type { EvaluatingSecurity } from './oauth/session.js'
export { localSessionOf, localSessionReader } from './oauth/session.js'
export type { OpenApiDocument, OpenApiInfo, OpenApiInput, OpenApiServer } from './openapi/document.js'
export { buildOpenApiDocument, OPENAPI_INFO_OPTIONS, OPENAPI_SERVER_OPTIONS } from './openapi/document.js'
export type { ActiveOrganizationRouteTableOptions } from './organizations/active-routes.js'
export {
  ACTIVE_ORGANIZATION_ROUTE_DOCS,
  ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS,
  activeOrganizationRouteTable,
} from './organizations/active-routes.js'
export { ORGANIZATION_DOMAIN_ROUTE_DOCS } from './organizations/domain-openapi.js'
export type { OrganizationDomainRouteTableOptions } from './organizations/domain-routes.js'
export {
  ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS,
  organizationDomainRouteTable,
} from './organizations/domain-routes.js'
export { FREE_MAIL_DOMAINS_SOURCE, freeMailDomains } from './organizations/free-mail-domains.js'
export { JOIN_REQUEST_ROUTE_DOCS } from './organizations/join-request-openapi.js'
export { addJoinRequestRoutes, joinRequestBody } from './organizations/join-request-routes.js'
export { ORGANIZATION_ROUTE_DOCS } from './organizations/openapi.js'
export type { OrganizationRouteTableOptions } from './organizations/routes.js'
export { ORGANIZATION_ROUTE_TABLE_OPTIONS, organizationRouteTable } from './organizations/routes.js'
export {
  browserBindingCookie,
  browserBindingFrom,
  PASSKEY_BINDING_COOKIE,
} from './passkeys/binding-cookie.js'
export { PASSKEY_ROUTE_DOCS } from './passkeys/openapi.js'
export type { PasskeyRouteTableOptions } from './passkeys/routes.js'
export {
  PASSKEY_AMR,
  PASSKEY_REGISTER_PURPOSE,
  PASSKEY_REMOVE_PURPOSE,
  PASSKEY_ROUTE_TABLE_OPTIONS,
  passkeyRouteTable,
  passkeyView,
} from './passkeys/routes.js'
export type { ProblemBody, ProblemInit, ProblemResponse } from './problem/problem.js'
export {
  DEFAULT_RATE_LIMIT_RETRY_SECONDS,
  DEFAULT_UNAVAILABLE_RETRY_SECONDS,
  HttpProblem,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemHeaders,
  problems,
  renderProblem,
  retryAfterFor,
} from './problem/problem.js'
export { problemFor } from './problem/problem-for.js'
export type { ParsedRoutePath } from './routing/paths.js'
export { joinPath, parseRoutePath } from './routing/paths.js'
export type { OperationDocumentation, RouteOptions } from './routing/route-options.js'
export type { HttpMethod, RegisteredRoute, RouteListener } from './routing/route-registry.js'
export { RouteRegistry } from './routing/route-registry.js'
export type { OpenApiConfig, RejectionEvent, SecurityOptions, StepUpConfig } from './security/config.js'
export type { RawRequestHead } from './security/credential-source.js'
export { parseCookies, RawCredentialSource, rawHeader } from './security/credential-source.js'
export { dpopProblem } from './security/dpop-challenge.js'
export type {
  RouteAuthorizer,
  RouteOutcome,
  RouteRequest,
  RouteRuntime,
  RouteSecurity,
} from './security/route-authorizer.js'
export { routeAuthorizer } from './security/route-authorizer.js'
export type { CompiledRoute, SecurityCore } from './security/security-core.js'
export { BUILT_IN_ROUTE_OPTIONS, createSecurityCore } from './security/security-core.js'
export { insufficientUserAuthentication, isBearerRequest } from './security/user-authentication-challenge.js'
export { TOTP_ROUTE_DOCS } from './totp/openapi.js'
export type { TotpRouteTableOptions } from './totp/routes.js'
export {
  TOTP_DISABLE_PURPOSE,
  TOTP_ENROLL_PURPOSE,
  TOTP_RECOVERY_CODES_PURPOSE,
  TOTP_ROUTE_TABLE_OPTIONS,
  totpRouteTable,
} from './totp/routes.js'
export { describeUserAgent } from './user-agents/index.js'
export type {
  FetchHandler,
  FetchReadLimits,
  ForwardedClientAddressOptions,
  KeptBody,
  WebBodySource,
  WebClientAddress,
  WebExchange,
  WebExchangeInit,
  WebRequestHead,
} from './web/index.js'
export {
  answerResponse,
  callerOf,
  forwardedClientAddress,
  headerClientAddress,
  inProcessRequest,
  nodeSocketClientAddress,
  pathOf,
  problemResponse,
  readThroughFetch,
  readWebBody,
  readWebRequestBody,
  WebCredentialSource,
  webExchange,
  webRouteRequest,
} from './web/index.js'
