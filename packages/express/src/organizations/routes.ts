import { readOptions } from '@portcullis/core/errors'
import {
  ORGANIZATION_ROUTE_TABLE_OPTIONS,
  type OrganizationRouteTableOptions,
  organizationRouteTable,
} from '@portcullis/http/organizations'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface OrganizationRoutesOptions extends OrganizationRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ORGANIZATION_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The organization routes under `{base}/auth/` (the route table of `@portcullis/http/organizations`):
 * create, list mine, members, roles, remove, leave, invite, revoke, resend and accept, on a router of
 * `security`; mount the returned router with `app.use(router)` after `localAccountRoutes` (its CSRF
 * check covers the POSTs).
 */
export function createOrganizationRoutes(options: OrganizationRoutesOptions): SecureRouter {
  readOptions(options, 'createOrganizationRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, organizationRouteTable(options), options.onError)
  return router
}
