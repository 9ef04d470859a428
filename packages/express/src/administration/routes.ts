import { readOptions } from '@portcullis/core/errors'
import {
  ADMINISTRATION_ROUTE_TABLE_OPTIONS,
  type AdministrationRouteTableOptions,
  administrationRouteTable,
} from '@portcullis/http/administration'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface AdministrationRoutesOptions extends AdministrationRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ADMINISTRATION_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The administration routes under `{base}/auth/admin/` (the route table of
 * `@portcullis/http/administration`) on a router of `security`; mount it with `app.use(router)` after
 * `localAccountRoutes` (whose CSRF check then runs in front of it).
 */
export function administrationRoutes(options: AdministrationRoutesOptions): SecureRouter {
  readOptions(options, 'administrationRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, administrationRouteTable(options, options.security.stepUp), options.onError)
  return router
}
