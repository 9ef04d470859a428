import { readOptions } from '@portcullis/core/errors'
import {
  ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS,
  type OrganizationDomainRouteTableOptions,
  organizationDomainRouteTable,
} from '@portcullis/http/organizations'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface OrganizationDomainRoutesOptions extends OrganizationDomainRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The organization-domain routes under `{base}/auth/` (the route table of
 * `@portcullis/http/organizations`): the claims of an organization, claim, verify, enrollment, remove,
 * the caller's offers and, with `joinRequests`, the requests to join (ask, the caller's own, withdraw;
 * a manager's list, approve, decline), on a router of `security`; mount the returned router with
 * `app.use(router)` after `localAccountRoutes` (its CSRF check covers the POSTs).
 */
export function createOrganizationDomainRoutes(options: OrganizationDomainRoutesOptions): SecureRouter {
  readOptions(options, 'createOrganizationDomainRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, organizationDomainRouteTable(options), options.onError)
  return router
}
