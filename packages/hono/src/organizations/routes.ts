import { readOptions } from '@portcullis/core/errors'
import {
  ORGANIZATION_ROUTE_TABLE_OPTIONS,
  type OrganizationRouteTableOptions,
  organizationRouteTable,
} from '@portcullis/http/organizations'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface OrganizationRoutesOptions extends OrganizationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ORGANIZATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the organization routes under `{base}/auth/` (the route table of
 * `@portcullis/http/organizations`): create, list mine, members, roles, remove, leave, invite, revoke,
 * resend and accept.
 */
export function createOrganizationRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: OrganizationRoutesOptions,
): void {
  readOptions(options, 'createOrganizationRoutes', OPTIONS)
  registerNeutralRoutes(app, security, organizationRouteTable(options), options.onError)
}
