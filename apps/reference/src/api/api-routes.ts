import { authenticatedWithin, requiresScope, requiresTenantRole } from '@portcullis/core/authorization'
import { anonymous, anyOf, required } from '@portcullis/core/policy'
import { HttpProblem, type SecureRouter, type Security } from '@portcullis/express'
import { LOCAL_TOKEN_MECHANISM, SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { DEMO_TENANTS, demoInvoices } from '../directory/demo-directory.js'
import { OAUTH_MECHANISM } from '../oauth-server/names.js'
import { tenantOf } from '../tenants/tenant-pages.js'
import { DEMO_WORKLOAD_JWKS_PATH, type WorkloadSigner } from '../workload/workload-signer.js'
import { API_KEY_MECHANISM, WORKLOAD_MECHANISM } from './mechanisms.js'
import { TENANT_PROJECTION_SCHEMA } from './projection-schema.js'
import { textPdf } from './text-pdf.js'

/** The API accepts API keys, demo workload JWTs, local access tokens and (for the browser) the session. */
export const API_POLICY = anyOf(
  OAUTH_MECHANISM,
  API_KEY_MECHANISM,
  WORKLOAD_MECHANISM,
  LOCAL_TOKEN_MECHANISM,
  SESSION_MECHANISM,
)

/** `GET /api/account/recent-sign-in`: how recent a local access token's password sign-in must be. */
export const RECENT_SIGN_IN_SECONDS = 300

/**
 * The JSON API under `/api`. Four routes are also published to agents as MCP resources; a read runs the
 * route in-process with the agent's own credentials, so the same policy and guards decide.
 */
export function apiRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  signer: WorkloadSigner,
): SecureRouter {
  const router = security.router()

  router.get(
    DEMO_WORKLOAD_JWKS_PATH,
    { auth: anonymous(), openapi: { summary: 'Demo workload issuer keys' } },
    (_request, response) => {
      response.setHeader('Cache-Control', 'public, max-age=300')
      response.json(signer.jwks())
    },
  )

  router.get(
    '/api/whoami',
    { auth: API_POLICY, openapi: { summary: 'Who the credential says you are' } },
    (request, response) => {
      const { principal, snapshot, evidence } = request.security
      response.json({
        principal,
        mechanisms: evidence.map((item) => ({
          mechanism: item.mechanism,
          credentialType: item.credentialType,
        })),
        scopes: snapshot.scopes,
        tenants: snapshot.toJSON().tenants,
      })
    },
  )

  // A local access token only, from a password sign-in at most five minutes old (its `auth_time`; a refresh
  // keeps the sign-in's time). A staler token is refused with the RFC 9470 challenge
  // `WWW-Authenticate: Bearer error="insufficient_user_authentication", max_age="300"`: sign in again.
  router.get(
    '/api/account/recent-sign-in',
    {
      auth: required(LOCAL_TOKEN_MECHANISM),
      guards: [authenticatedWithin(RECENT_SIGN_IN_SECONDS)],
      openapi: { summary: 'A local access token whose password sign-in is at most 5 minutes old' },
    },
    (request, response) => {
      const { principal, evidence } = request.security
      const token = evidence.find((item) => item.mechanism === LOCAL_TOKEN_MECHANISM)
      response.json({
        principal,
        authTime: token?.attributes?.authTime,
        maxAgeSeconds: RECENT_SIGN_IN_SECONDS,
      })
    },
  )

  router.get(
    '/api/capabilities',
    {
      auth: API_POLICY,
      mcpResource: 'capabilities',
      mcpResourceMimeType: 'application/json',
      mcpResourceTitle: 'Capability summary',
      mcpResourceDescription: 'What this demo offers, and what the calling credential may do in it',
    },
    (request, response) => {
      const { principal, snapshot } = request.security
      response.json({
        app: 'Portcullis reference app',
        mechanisms: [API_KEY_MECHANISM, WORKLOAD_MECHANISM, LOCAL_TOKEN_MECHANISM, SESSION_MECHANISM],
        you: {
          id: principal.id,
          kind: principal.kind,
          scopes: snapshot.scopes,
          tenants: snapshot.toJSON().tenants,
        },
        resources: {
          tenantProjection: 'tenant://{tenantId}/projection (owner or billing of the tenant)',
          usageReport: 'reference://usage-report (scope reports:read)',
          schema: 'reference://tenant-projection-schema',
        },
        identityProviders: [
          ...(context.idp === undefined ? [] : [{ name: 'demo', issuer: context.idp.issuer }]),
          ...context.providers.map((provider) => ({ name: provider.kind })),
        ],
      })
    },
  )

  router.get(
    '/api/schemas/tenant-projection.json',
    {
      auth: API_POLICY,
      mcpResource: 'tenant-projection-schema',
      mcpResourceMimeType: 'application/schema+json',
      mcpResourceTitle: 'Tenant projection schema',
      mcpResourceDescription: 'JSON Schema (2020-12) of tenant://{tenantId}/projection',
    },
    (_request, response) => {
      response.type('application/schema+json').send(JSON.stringify(TENANT_PROJECTION_SCHEMA))
    },
  )

  router.get(
    '/api/tenants/:tenantId/projection',
    {
      auth: API_POLICY,
      guards: [requiresTenantRole({ roles: ['owner', 'billing'] })],
      mcpResource: 'tenant-projection',
      mcpResourceTemplate: 'tenant://{tenantId}/projection',
      mcpResourceMimeType: 'application/json',
      mcpResourceTitle: 'Tenant projection',
      mcpResourceDescription: 'A tenant with its invoices; readable by its owners and billing members only',
    },
    async (request, response) => {
      // The organization as it is now (any organization, not only the demo ones), the demo plan and seats.
      const id = String(request.params.tenantId)
      const organization = await context.organizations.store.getOrganization(id)
      if (organization === null) throw new HttpProblem({ status: 404, code: 'tenant.not_found' })
      const tenant = tenantOf(organization, context.directory.tenant(id))
      response.json({
        tenant,
        invoices: demoInvoices(tenant),
        viewer: {
          id: request.security.principal.id,
          roles: request.security.snapshot.tenantRoles(tenant.id),
        },
      })
    },
  )

  router.get(
    '/api/reports/usage.pdf',
    {
      auth: API_POLICY,
      guards: [requiresScope('reports:read')],
      mcpResource: 'usage-report',
      mcpResourceMimeType: 'application/pdf',
      mcpResourceTitle: 'Usage report (PDF)',
      mcpResourceDescription: 'Seats and invoices of the tenants the caller may see, as a one-page PDF',
    },
    (request, response) => {
      const { principal, snapshot } = request.security
      const lines = DEMO_TENANTS.filter((tenant) => snapshot.inTenant(tenant.id)).map(
        (tenant) =>
          `${tenant.name} (${tenant.id}): ${tenant.seats} seats, plan ${tenant.plan}, roles ${snapshot.tenantRoles(tenant.id).join(', ') || 'member'}`,
      )
      const pdf = textPdf('Portcullis demo usage report', [
        `For ${principal.id} (${principal.kind})`,
        '',
        ...(lines.length === 0 ? ['No tenants.'] : lines),
      ])
      response.type('application/pdf').setHeader('Content-Disposition', 'inline; filename="usage.pdf"')
      response.send(pdf)
    },
  )

  return router
}
