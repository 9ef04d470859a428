import { readOptions } from '@portcullis/core/errors'
import {
  PASSKEY_ROUTE_TABLE_OPTIONS,
  type PasskeyRouteTableOptions,
  passkeyRouteTable,
} from '@portcullis/http/passkeys'
import type { Context } from 'hono'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { HonoSecurity } from '../security/create-security.js'
import type { AnyHono } from '../security/types.js'

export interface PasskeyRoutesOptions extends PasskeyRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, c: Context) => void
}

const OPTIONS = { ...PASSKEY_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the passkey routes under `{base}/auth/` (the route table of `@portcullis/http/passkeys`; after
 * `localAccountRoutes`): list, register (`passkey-register` step-up), sign in (session and token
 * profiles), rename, remove (`passkey-remove` step-up) and the passkey step-up.
 */
export function passkeyRoutes(app: AnyHono, security: HonoSecurity, options: PasskeyRoutesOptions): void {
  readOptions(options, 'passkeyRoutes', OPTIONS)
  registerNeutralRoutes(app, security, passkeyRouteTable(options, security.stepUp), options.onError)
}
