import { readOptions } from '@portcullis/core/errors'
import { TOTP_ROUTE_TABLE_OPTIONS, type TotpRouteTableOptions, totpRouteTable } from '@portcullis/http/totp'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface TotpRoutesOptions extends TotpRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...TOTP_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the TOTP routes under `{base}/auth/` (the route table of `@portcullis/http/totp`; after
 * `localAccountRoutes`): `GET totp`, `POST totp/enroll`, `POST totp/confirm`,
 * `POST totp/recovery-codes`, `POST totp/disable` (each change behind its step-up purpose).
 */
export function totpRoutes(app: AnyHono, security: HonoSecurity, options: TotpRoutesOptions): void {
  readOptions(options, 'totpRoutes', OPTIONS)
  registerNeutralRoutes(app, security, totpRouteTable(options, security.stepUp), options.onError)
}
