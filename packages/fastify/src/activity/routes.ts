import { readOptions } from '@portcullis/core/errors'
import {
  ACTIVITY_ROUTE_TABLE_OPTIONS,
  type ActivityRouteTableOptions,
  activityRouteTable,
} from '@portcullis/http/activity'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface ActivityRoutesOptions extends ActivityRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ACTIVITY_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the activity routes under `{base}/auth/` (the route table of `@portcullis/http/activity`; register
 * the `portcullis` plugin and `localAccountRoutes` first): recent activity, the signed-in sessions with
 * their devices, signing out one or every other.
 */
export function activityRoutes(fastify: FastifyInstance, options: ActivityRoutesOptions): void {
  readOptions(options, 'activityRoutes', OPTIONS)
  registerNeutralRoutes(fastify, activityRouteTable(options), {
    bodyLimit: LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
