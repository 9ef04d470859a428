import { anonymousContext } from '@portcullis/core/authorization'
import type { OpenApiDocument } from '@portcullis/http/openapi'
import type { RequestHandler } from 'express'
import { IN_PROCESS_FORM } from './in-process.js'

export interface AppMiddlewareOptions {
  readonly headers: readonly (readonly [string, string])[]
  /** Serve the document here (GET/HEAD), or undefined for none. */
  readonly openapiPath: string | undefined
  readonly openapi: () => OpenApiDocument
}

/**
 * Security headers on every response, an anonymous context on every request, and the OpenAPI route. Its
 * in-process form (MCP resource reads) leaves out the headers: that response never reaches a client.
 */
export function appMiddleware(options: AppMiddlewareOptions): RequestHandler {
  const { headers, openapiPath, openapi } = options
  const withoutHeaders: RequestHandler = (request, response, next) => {
    request.security ??= anonymousContext
    if (
      openapiPath !== undefined &&
      request.path === openapiPath &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      response.setHeader('Cache-Control', 'no-cache')
      response.json(openapi())
      return
    }
    next()
  }
  const middleware: RequestHandler = (request, response, next) => {
    response.removeHeader('X-Powered-By')
    for (const [name, value] of headers) response.setHeader(name, value)
    withoutHeaders(request, response, next)
  }
  return Object.defineProperty(middleware, IN_PROCESS_FORM, { value: withoutHeaders })
}
