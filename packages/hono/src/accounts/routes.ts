import { readOptions } from '@portcullis/core/errors'
import {
  ACCOUNT_ROUTE_TABLE_OPTIONS,
  type AccountRouteTableOptions,
  accountRouteTable,
} from '@portcullis/http/accounts'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface AccountRoutesOptions extends AccountRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ACCOUNT_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the account routes under `{base}/auth/` (the route table of `@portcullis/http/accounts`):
 * `GET account`, `POST step-up/{purpose}`, `POST password`, `POST password/remove`,
 * `POST account/delete`, with the security instance's step-up transport.
 */
export function createAccountRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: AccountRoutesOptions,
): void {
  readOptions(options, 'createAccountRoutes', OPTIONS)
  registerNeutralRoutes(app, security, accountRouteTable(options, security.stepUp), options.onError)
}
