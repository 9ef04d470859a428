import type { SecurityContext } from '@portcullis/core/authorization'
// aliased: inside `declare module 'fastify'` a bare `RouteOptions` would name Fastify's own interface as
// soon as another plugin augments it (`@fastify/helmet` does)
import type { RouteOptions as PortcullisRouteOptions } from '@portcullis/http/routing'
import type { FastifySecurity } from './plugin-options.js'

declare module 'fastify' {
  // Route options in Fastify's own place: `app.get(path, { config: { auth, guards, openapi, mcpResource } }, handler)`.
  interface FastifyContextConfig extends PortcullisRouteOptions {}

  interface FastifyRequest {
    /**
     * Set by Portcullis: anonymous for every request, then the principal, effective snapshot and evidence
     * once a secured route's policy and guards granted.
     */
    security: SecurityContext
  }

  interface FastifyInstance {
    /** The Portcullis instance the plugin registered: route registry, OpenAPI, evaluation, step-up. */
    readonly portcullis: FastifySecurity
  }
}
