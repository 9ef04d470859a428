import { readOptions } from '@portcullis/core/errors'
import {
  ACTIVITY_ROUTE_TABLE_OPTIONS,
  type ActivityRouteTableOptions,
  activityRouteTable,
} from '@portcullis/http/activity'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface ActivityRoutesOptions extends ActivityRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ACTIVITY_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the activity routes under `{base}/auth/` (the route table of `@portcullis/http/activity`; after
 * `localAccountRoutes`): recent activity, the signed-in sessions with their devices, signing out one or
 * every other.
 */
export function activityRoutes(app: AnyHono, security: HonoSecurity, options: ActivityRoutesOptions): void {
  readOptions(options, 'activityRoutes', OPTIONS)
  registerNeutralRoutes(app, security, activityRouteTable(options), options.onError)
}
