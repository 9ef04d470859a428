import { readOptions } from '@portcullis/core/errors'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import { TOTP_ROUTE_TABLE_OPTIONS, type TotpRouteTableOptions, totpRouteTable } from '@portcullis/http/totp'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface TotpRoutesOptions extends TotpRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...TOTP_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the TOTP routes under `{base}/auth/` (the route table of `@portcullis/http/totp`; register the
 * `portcullis` plugin and `localAccountRoutes` first): `GET totp`, `POST totp/enroll` (`totp-enroll`
 * step-up), `POST totp/confirm`, `POST totp/recovery-codes` (`totp-recovery-codes` step-up),
 * `POST totp/disable` (`totp-disable` step-up), with the plugin's step-up transport.
 */
export function totpRoutes(fastify: FastifyInstance, options: TotpRoutesOptions): void {
  readOptions(options, 'totpRoutes', OPTIONS)
  registerNeutralRoutes(fastify, totpRouteTable(options, fastify.portcullis.stepUp), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
