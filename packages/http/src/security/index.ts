// Route security for any framework: the configuration, the compiled routes and the decision in front of
// their handlers, the request view mechanisms read, and the challenges.
export type { OpenApiConfig, RejectionEvent, SecurityOptions, StepUpConfig } from './config.js'
export type { RawRequestHead } from './credential-source.js'
export { parseCookies, RawCredentialSource, rawHeader } from './credential-source.js'
export { dpopProblem } from './dpop-challenge.js'
export type {
  RouteAuthorizer,
  RouteOutcome,
  RouteRequest,
  RouteRuntime,
  RouteSecurity,
} from './route-authorizer.js'
export { routeAuthorizer } from './route-authorizer.js'
export type { CompiledRoute, SecurityCore } from './security-core.js'
export { BUILT_IN_ROUTE_OPTIONS, createSecurityCore } from './security-core.js'
export { insufficientUserAuthentication, isBearerRequest } from './user-authentication-challenge.js'
