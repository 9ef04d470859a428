import { readOptions } from '@portcullis/core/errors'
import {
  PASSKEY_ROUTE_TABLE_OPTIONS,
  type PasskeyRouteTableOptions,
  passkeyRouteTable,
} from '@portcullis/http/passkeys'
import type { Request } from 'express'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'

export interface PasskeyRoutesOptions extends PasskeyRouteTableOptions {
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS = {
  ...PASSKEY_ROUTE_TABLE_OPTIONS,
  security: { required: true, kind: 'object' },
  onError: { kind: 'function' },
} as const

/**
 * The passkey routes under `{base}/auth/` (the route table of `@portcullis/http/passkeys`): list, register
 * (`passkey-register` step-up), sign in (session and token profiles), rename, remove (`passkey-remove`
 * step-up) and the passkey step-up, on a router of `security`; mount it with `app.use(router)` after
 * `localAccountRoutes` (whose CSRF check covers them).
 */
export function passkeyRoutes(options: PasskeyRoutesOptions): SecureRouter {
  readOptions(options, 'passkeyRoutes', OPTIONS)
  const router = options.security.router()
  registerNeutralRoutes(router, passkeyRouteTable(options, options.security.stepUp), options.onError)
  return router
}
