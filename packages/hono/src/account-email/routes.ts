import { readOptions } from '@portcullis/core/errors'
import {
  ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS,
  type AccountEmailRouteTableOptions,
  accountEmailRouteTable,
} from '@portcullis/http/account-email'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface AccountEmailRoutesOptions extends AccountEmailRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the account email routes under `{base}/auth/` (the route table of
 * `@portcullis/http/account-email`; after `localAccountRoutes`): sign-up with verification, email
 * verification and resend, password reset.
 */
export function accountEmailRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: AccountEmailRoutesOptions,
): void {
  readOptions(options, 'accountEmailRoutes', OPTIONS)
  registerNeutralRoutes(app, security, accountEmailRouteTable(options, security.stepUp), options.onError)
}
