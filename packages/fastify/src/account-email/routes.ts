import { readOptions } from '@portcullis/core/errors'
import {
  ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS,
  type AccountEmailRouteTableOptions,
  accountEmailRouteTable,
} from '@portcullis/http/account-email'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface AccountEmailRoutesOptions extends AccountEmailRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the account email routes under `{base}/auth/` (the route table of
 * `@portcullis/http/account-email`; register the `portcullis` plugin and `localAccountRoutes` first):
 * sign-up with verification, email verification and resend, password reset.
 */
export function accountEmailRoutes(fastify: FastifyInstance, options: AccountEmailRoutesOptions): void {
  readOptions(options, 'accountEmailRoutes', OPTIONS)
  registerNeutralRoutes(fastify, accountEmailRouteTable(options, fastify.portcullis.stepUp), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
