// The MCP endpoint for Hono and the route marks it publishes.
export type {
  MCPResourceMark,
  MCPResourceMarkOptions,
  ProtectedResourceOptions,
  SkillsOptions,
} from '@portcullis/http/mcp'
export { markOf, mcpResource } from '@portcullis/http/mcp'
export { mcpEndpoint } from './endpoint.js'
export type { MCPEndpointOptions } from './options.js'
