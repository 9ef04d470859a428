import { type MCPResourceMarkOptions, mcpResource as markHandler } from '@portcullis/http/mcp'
import type { RequestHandler } from 'express'

export type { MCPResourceMark, MCPResourceMarkOptions, MCPRouteOptions } from '@portcullis/http/mcp'
export { markOf } from '@portcullis/http/mcp'

/**
 * The wrapper form: `router.get('/config', mcpResource('config', { mimeType: 'application/json' })(handler))`.
 * The returned handler behaves exactly like `handler`; `attach()` finds it in the app's router stack.
 * Marking a handler that ends up on a non-GET route is a startup error.
 */
export function mcpResource(name: string, options: MCPResourceMarkOptions = {}) {
  const mark = markHandler(name, options)
  return <H extends RequestHandler>(handler: H): H => mark(handler)
}
