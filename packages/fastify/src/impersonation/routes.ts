import { readOptions } from '@portcullis/core/errors'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import {
  IMPERSONATION_ROUTE_TABLE_OPTIONS,
  type ImpersonationRouteTableOptions,
  impersonationRouteTable,
} from '@portcullis/http/impersonation'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface ImpersonationRoutesOptions extends ImpersonationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...IMPERSONATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the impersonation routes under `{base}/auth/` (the route table of
 * `@portcullis/http/impersonation`; register the `portcullis` plugin first): `POST impersonation`,
 * `POST impersonation/end`, `GET impersonation`, with the plugin's step-up transport.
 */
export function impersonationRoutes(fastify: FastifyInstance, options: ImpersonationRoutesOptions): void {
  readOptions(options, 'impersonationRoutes', OPTIONS)
  registerNeutralRoutes(fastify, impersonationRouteTable(options, fastify.portcullis.stepUp), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
