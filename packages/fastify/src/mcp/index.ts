// The MCP endpoint for Fastify and the route marks it publishes.
export type {
  MCPResourceMark,
  MCPResourceMarkOptions,
  ProtectedResourceOptions,
  SkillsOptions,
} from '@portcullis/http/mcp'
export { markOf, mcpResource } from '@portcullis/http/mcp'
export type { MCPEndpointOptions } from './endpoint.js'
export { mcpEndpoint } from './endpoint.js'
