import { readOptions } from '@portcullis/core/errors'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import {
  ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS,
  type ActiveOrganizationRouteTableOptions,
  activeOrganizationRouteTable,
} from '@portcullis/http/organizations'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface ActiveOrganizationRoutesOptions extends ActiveOrganizationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds `GET` and `POST {base}/auth/active-organization` (the route table of
 * `@portcullis/http/organizations`; register the `portcullis` plugin first): the organization the
 * caller's session works in.
 */
export function createActiveOrganizationRoutes(
  fastify: FastifyInstance,
  options: ActiveOrganizationRoutesOptions,
): void {
  readOptions(options, 'createActiveOrganizationRoutes', OPTIONS)
  registerNeutralRoutes(fastify, activeOrganizationRouteTable(options), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
