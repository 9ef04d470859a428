import { readOptions } from '@portcullis/core/errors'
import {
  ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS,
  type OrganizationDomainRouteTableOptions,
  organizationDomainRouteTable,
} from '@portcullis/http/organizations'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface OrganizationDomainRoutesOptions extends OrganizationDomainRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the organization-domain routes under `{base}/auth/` (the route table of
 * `@portcullis/http/organizations`): the claims of an organization, claim, verify, enrollment, remove,
 * the caller's offers and, with `joinRequests`, the requests to join (ask, the caller's own, withdraw;
 * a manager's list, approve, decline).
 */
export function createOrganizationDomainRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: OrganizationDomainRoutesOptions,
): void {
  readOptions(options, 'createOrganizationDomainRoutes', OPTIONS)
  registerNeutralRoutes(app, security, organizationDomainRouteTable(options), options.onError)
}
