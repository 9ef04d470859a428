import { readOptions } from '@portcullis/core/errors'
import {
  ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS,
  type ActiveOrganizationRouteTableOptions,
  activeOrganizationRouteTable,
} from '@portcullis/http/organizations'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface ActiveOrganizationRoutesOptions extends ActiveOrganizationRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * `GET` and `POST {base}/auth/active-organization` (the route table of `@portcullis/http/organizations`):
 * the organization the caller's session works in. Mount the returned router with `app.use(router)` after
 * `localAccountRoutes` (its CSRF check covers the POST).
 */
export function createActiveOrganizationRoutes(options: ActiveOrganizationRoutesOptions): SecureRouter {
  readOptions(options, 'createActiveOrganizationRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, activeOrganizationRouteTable(options), options.onError)
  return router
}
