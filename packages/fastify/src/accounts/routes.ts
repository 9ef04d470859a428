import { readOptions } from '@portcullis/core/errors'
import {
  ACCOUNT_ROUTE_TABLE_OPTIONS,
  type AccountRouteTableOptions,
  accountRouteTable,
} from '@portcullis/http/accounts'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface AccountRoutesOptions extends AccountRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ACCOUNT_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the account routes under `{base}/auth/` (the route table of `@portcullis/http/accounts`; register
 * the `portcullis` plugin first): `GET account`, `POST step-up/{purpose}`, `POST password`,
 * `POST password/remove`, `POST account/delete`, with the plugin's step-up transport.
 */
export function createAccountRoutes(fastify: FastifyInstance, options: AccountRoutesOptions): void {
  readOptions(options, 'createAccountRoutes', OPTIONS)
  registerNeutralRoutes(fastify, accountRouteTable(options, fastify.portcullis.stepUp), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
