import { readOptions } from '@portcullis/core/errors'
import {
  ADMINISTRATION_ROUTE_TABLE_OPTIONS,
  type AdministrationRouteTableOptions,
  administrationRouteTable,
} from '@portcullis/http/administration'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface AdministrationRoutesOptions extends AdministrationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ADMINISTRATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the administration routes under `{base}/auth/admin/` (the route table of
 * `@portcullis/http/administration`; register the `portcullis` plugin and `localAccountRoutes` first).
 */
export function administrationRoutes(fastify: FastifyInstance, options: AdministrationRoutesOptions): void {
  readOptions(options, 'administrationRoutes', OPTIONS)
  registerNeutralRoutes(fastify, administrationRouteTable(options, fastify.portcullis.stepUp), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
