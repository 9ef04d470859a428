import { readOptions } from '@portcullis/core/errors'
import {
  ADMINISTRATION_ROUTE_TABLE_OPTIONS,
  type AdministrationRouteTableOptions,
  administrationRouteTable,
} from '@portcullis/http/administration'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface AdministrationRoutesOptions extends AdministrationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ADMINISTRATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the administration routes under `{base}/auth/admin/` (the route table of
 * `@portcullis/http/administration`; after `localAccountRoutes`).
 */
export function administrationRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: AdministrationRoutesOptions,
): void {
  readOptions(options, 'administrationRoutes', OPTIONS)
  registerNeutralRoutes(app, security, administrationRouteTable(options, security.stepUp), options.onError)
}
