export type {
  DiscoveredRoute,
  MCPResourceMark,
  MCPResourceMarkOptions,
  MCPRouteDeclaration,
  MCPRouteOptions,
  ProtectedResourceOptions,
  ResourceRoutePath,
  SkillsOptions,
} from '@portcullis/http/mcp'
export { markOf } from '@portcullis/http/mcp'
export { discoverRoutes } from './discovery.js'
export { createMCPEndpoint } from './endpoint.js'
export type { MCPEndpoint, MCPEndpointOptions } from './endpoint-options.js'
export { mcpResource } from './marking.js'
export type { ResourceApp, SetupOptions } from './setup.js'
