import { readOptions } from '@portcullis/core/errors'
import {
  IMPERSONATION_ROUTE_TABLE_OPTIONS,
  type ImpersonationRouteTableOptions,
  impersonationRouteTable,
} from '@portcullis/http/impersonation'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface ImpersonationRoutesOptions extends ImpersonationRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...IMPERSONATION_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The impersonation routes under `{base}/auth/` (the route table of `@portcullis/http/impersonation`):
 * `POST impersonation`, `POST impersonation/end`, `GET impersonation`, on a router of `security`; mount
 * the returned router with `app.use(router)`.
 */
export function impersonationRoutes(options: ImpersonationRoutesOptions): SecureRouter {
  readOptions(options, 'impersonationRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, impersonationRouteTable(options, options.security.stepUp), options.onError)
  return router
}
