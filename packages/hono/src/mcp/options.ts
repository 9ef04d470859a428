import type { RouteEndpointOptions } from '@portcullis/http/mcp'
import type { Context } from 'hono'

/** The options of `mcpEndpoint`: publishing, origin policy, the endpoint's own policy, guards and limits. */
export interface MCPEndpointOptions extends RouteEndpointOptions<Context> {}
