import { readOptions } from '@portcullis/core/errors'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import {
  ORGANIZATION_ROUTE_TABLE_OPTIONS,
  type OrganizationRouteTableOptions,
  organizationRouteTable,
} from '@portcullis/http/organizations'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface OrganizationRoutesOptions extends OrganizationRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ORGANIZATION_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the organization routes under `{base}/auth/` (the route table of
 * `@portcullis/http/organizations`; register the `portcullis` plugin first): create, list mine,
 * members, roles, remove, leave, invite, revoke, resend and accept.
 */
export function createOrganizationRoutes(fastify: FastifyInstance, options: OrganizationRoutesOptions): void {
  readOptions(options, 'createOrganizationRoutes', OPTIONS)
  registerNeutralRoutes(fastify, organizationRouteTable(options), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
