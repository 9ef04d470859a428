import { readOptions } from '@portcullis/core/errors'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import {
  ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS,
  type OrganizationDomainRouteTableOptions,
  organizationDomainRouteTable,
} from '@portcullis/http/organizations'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { registerNeutralRoutes } from '../routing/neutral-routes.js'

export interface OrganizationDomainRoutesOptions extends OrganizationDomainRouteTableOptions {
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void
}

const OPTIONS = { ...ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS, onError: { kind: 'function' } } as const

/**
 * Adds the organization-domain routes under `{base}/auth/` (the route table of
 * `@portcullis/http/organizations`; register the `portcullis` plugin first): the claims of an
 * organization, claim, verify, enrollment, remove, the caller's offers and, with `joinRequests`, the
 * requests to join (ask, the caller's own, withdraw; a manager's list, approve, decline).
 */
export function createOrganizationDomainRoutes(
  fastify: FastifyInstance,
  options: OrganizationDomainRoutesOptions,
): void {
  readOptions(options, 'createOrganizationDomainRoutes', OPTIONS)
  registerNeutralRoutes(fastify, organizationDomainRouteTable(options), {
    bodyLimit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    onError: options.onError,
  })
}
