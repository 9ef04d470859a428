import { readOptions } from '@portcullis/core/errors'
import {
  IMPERSONATION_ROUTE_TABLE_OPTIONS,
  type ImpersonationRouteTableOptions,
  impersonationRouteTable,
} from '@portcullis/http/impersonation'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface ImpersonationRoutesOptions extends ImpersonationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...IMPERSONATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the impersonation routes under `{base}/auth/` (the route table of
 * `@portcullis/http/impersonation`): `POST impersonation`, `POST impersonation/end`,
 * `GET impersonation`, with the security instance's step-up transport.
 */
export function impersonationRoutes(
  app: AnyHono,
  security: HonoSecurity,
  options: ImpersonationRoutesOptions,
): void {
  readOptions(options, 'impersonationRoutes', OPTIONS)
  registerNeutralRoutes(app, security, impersonationRouteTable(options, security.stepUp), options.onError)
}
