import { readOptions } from '@portcullis/core/errors'
import {
  ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS,
  type ActiveOrganizationRouteTableOptions,
  activeOrganizationRouteTable,
} from '@portcullis/http/organizations'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface ActiveOrganizationRoutesOptions extends ActiveOrganizationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds `GET` and `POST {base}/auth/active-organization` (the route table of
 * `@portcullis/http/organizations`): the organization the caller's session works in.
 */
export function createActiveOrganizationRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: ActiveOrganizationRoutesOptions,
): void {
  readOptions(options, 'createActiveOrganizationRoutes', OPTIONS)
  registerNeutralRoutes(app, security, activeOrganizationRouteTable(options), options.onError)
}
