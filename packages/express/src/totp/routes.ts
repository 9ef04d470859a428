import { readOptions } from '@portcullis/core/errors'
import { TOTP_ROUTE_TABLE_OPTIONS, type TotpRouteTableOptions, totpRouteTable } from '@portcullis/http/totp'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface TotpRoutesOptions extends TotpRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...TOTP_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The TOTP routes under `{base}/auth/` (the route table of `@portcullis/http/totp`): `GET totp`,
 * `POST totp/enroll` (`totp-enroll` step-up), `POST totp/confirm`, `POST totp/recovery-codes`
 * (`totp-recovery-codes` step-up), `POST totp/disable` (`totp-disable` step-up), on a router of
 * `security`; mount it with `app.use(router)` after `localAccountRoutes`.
 */
export function totpRoutes(options: TotpRoutesOptions): SecureRouter {
  readOptions(options, 'totpRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, totpRouteTable(options, options.security.stepUp), options.onError)
  return router
}
