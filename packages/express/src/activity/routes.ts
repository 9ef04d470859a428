import { readOptions } from '@portcullis/core/errors'
import {
  ACTIVITY_ROUTE_TABLE_OPTIONS,
  type ActivityRouteTableOptions,
  activityRouteTable,
} from '@portcullis/http/activity'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface ActivityRoutesOptions extends ActivityRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ACTIVITY_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The activity routes under `{base}/auth/` (the route table of `@portcullis/http/activity`): recent
 * activity, the signed-in sessions with their devices, signing out one or every other, on a router of
 * `security`; mount it with `app.use(router)` after `localAccountRoutes` (whose CSRF check then runs in
 * front of it).
 */
export function activityRoutes(options: ActivityRoutesOptions): SecureRouter {
  readOptions(options, 'activityRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, activityRouteTable(options), options.onError)
  return router
}
