import { readOptions } from '@portcullis/core/errors'
import {
  ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS,
  type AccountEmailRouteTableOptions,
  accountEmailRouteTable,
} from '@portcullis/http/account-email'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface AccountEmailRoutesOptions extends AccountEmailRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The account email routes under `{base}/auth/` (the route table of `@portcullis/http/account-email`):
 * sign-up with verification, email verification and resend, password reset, on a router of
 * `security`; mount it with `app.use(router)` after `localAccountRoutes` (whose CSRF check then runs
 * in front of it).
 */
export function accountEmailRoutes(options: AccountEmailRoutesOptions): SecureRouter {
  readOptions(options, 'accountEmailRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, accountEmailRouteTable(options, options.security.stepUp), options.onError)
  return router
}
