// The whole public API of @portcullis/fastify: the plugin, its options and decoration, the health route,
// problem helpers, and the names of the framework-neutral layer an application uses with it.
export type { HealthCheck, HealthRouteOptions } from '@portcullis/http/health'
export type { ProblemBody, ProblemInit } from '@portcullis/http/problem'
export { HttpProblem, problemBody, problemFor, problems } from '@portcullis/http/problem'
export type { OperationDocumentation, RegisteredRoute, RouteOptions } from '@portcullis/http/routing'
export type { OpenApiConfig, RejectionEvent, StepUpConfig } from '@portcullis/http/security'
export { healthRoute } from './health/health-route.js'
export type { LocalAccountRoutes, LocalAccountRoutesOptions } from './local-accounts/routes.js'
export { localAccountRoutes } from './local-accounts/routes.js'
export { fastifyProblemFor, problemErrorHandler, sendProblem } from './problem/send-problem.js'
export { portcullis } from './security/plugin.js'
export type { FastifySecurity, FastifySecurityOptions } from './security/plugin-options.js'
export { requirePrincipal, securityOf } from './security/request-context.js'
