import { readOptions } from '@portcullis/core/errors'
import {
  ACCOUNT_ROUTE_TABLE_OPTIONS,
  type AccountRouteTableOptions,
  accountRouteTable,
} from '@portcullis/http/accounts'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface AccountRoutesOptions extends AccountRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...ACCOUNT_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The account routes under `{base}/auth/` (the route table of `@portcullis/http/accounts`): `GET account`,
 * `POST step-up/{purpose}`, `POST password`, `POST password/remove`, `POST account/delete`, on a router of
 * `security`; mount the returned router with `app.use(router)`.
 */
export function createAccountRoutes(options: AccountRoutesOptions): SecureRouter {
  readOptions(options, 'createAccountRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, accountRouteTable(options, options.security.stepUp), options.onError)
  return router
}
