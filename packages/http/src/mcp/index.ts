// MCP publishing for any framework: route marks, resource routes, the dry run of a route's policy,
// protected-resource metadata and challenges, origin checks and the transport's answers.
export type { DiscoveredRoute, MCPRouteDeclaration } from './declaration.js'
export { declarationMark } from './declaration.js'
export type { RouteEndpointOptions } from './endpoint-options.js'
export { endpointBasics, ROUTE_ENDPOINT_OPTIONS } from './endpoint-options.js'
export { IN_PROCESS_DROPPED_HEADERS, inProcessHeaders } from './in-process-headers.js'
export type { AnyHandler, MCPResourceMark, MCPResourceMarkOptions, MCPRouteOptions } from './marking.js'
export {
  MCP_RESOURCE_MARK_OPTIONS,
  MCP_ROUTE_OPTION_KEYS,
  markFromOptions,
  markOf,
  mcpResource,
} from './marking.js'
export { minimalOpenApi } from './openapi-fallback.js'
export type { ProtectedResource, ProtectedResourceOptions } from './protected-resource.js'
export {
  endpointChallenges,
  PROTECTED_RESOURCE_OPTIONS,
  protectedResource,
  scopesOf,
} from './protected-resource.js'
export type { DeclaredResource } from './resource-policy.js'
export { readableBy, resourceCacheScope } from './resource-policy.js'
export type { BuiltEndpoint, EndpointSecurity, ReadLimits, RouteEndpoint } from './route-endpoint.js'
export { routeEndpoint } from './route-endpoint.js'
export type { ResourceRoutePath } from './route-path.js'
export { joinPaths, parseResourceRoutePath } from './route-path.js'
export type { PublishingOptions, ResolvedSetup, SkillsOptions } from './setup.js'
export {
  declaredRoutes,
  loadSkills,
  resolveSetup,
  resourceRoute,
  SERVER_INFO_OPTIONS,
  SKILLS_OPTIONS,
  serverInfoOf,
} from './setup.js'
export type { MCPAnswer, OriginInput, OriginPolicy } from './transport.js'
export {
  originRefusal,
  resultAnswer,
  rpcErrorAnswer,
  TRANSPORT_ERROR,
  wantsEventStream,
} from './transport.js'
