import { readOptions } from '@portcullis/core/errors'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import {
  PASSKEY_ROUTE_TABLE_OPTIONS,
  type PasskeyRouteTableOptions,
  passkeyRouteTable,
} from '@portcullis/http/passkeys'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface PasskeyRoutesOptions extends PasskeyRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...PASSKEY_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the passkey routes under `{base}/auth/` (the route table of `@portcullis/http/passkeys`; register
 * the `portcullis` plugin and `localAccountRoutes` first): list, register (`passkey-register` step-up),
 * sign in (session and token profiles), rename, remove (`passkey-remove` step-up) and the passkey
 * step-up, with the plugin's step-up transport.
 */
export function passkeyRoutes(fastify: FastifyInstance, options: PasskeyRoutesOptions): void {
  readOptions(options, 'passkeyRoutes', OPTIONS)
  registerNeutralRoutes(fastify, passkeyRouteTable(options, fastify.portcullis.stepUp), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
