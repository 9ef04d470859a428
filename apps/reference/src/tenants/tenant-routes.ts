import { requiresTenant, requiresTenantRole } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import {
  type TenantMember,
  tenantBillingPage,
  tenantListPage,
  tenantOverviewPage,
  tenantSettingsPage,
  tenantOf as tenantView,
} from './tenant-pages.js'

const TENANT_ID = /^[a-z0-9-]{1,64}$/

/**
 * Tenant pages. Each guard reads `:tenantId` from the parsed path and checks it against the snapshot the
 * `authorizationResolver` built for the signed-in user: `/tenants/initech` for someone outside initech is
 * 403, and so is `/tenants/globex/billing` for a viewer of globex.
 */
export function tenantRoutes(security: Pick<Security, 'router'>, context: ReferenceContext): SecureRouter {
  const router = security.router()
  const auth = required(SESSION_MECHANISM)
  const { store } = context.organizations
  // The guard ran first: the viewer is a member, so the organization exists (unless deleted meanwhile).
  const tenantOf = async (request: SecuredRequest) => {
    const id = String(request.params.tenantId)
    const organization = TENANT_ID.test(id) ? await store.getOrganization(id) : null
    if (organization === null)
      throw new HttpProblem({ status: 404, code: 'tenant.not_found', detail: 'No such tenant' })
    return tenantView(organization, context.directory.tenant(id))
  }
  // The names of the viewer's organizations (the switcher and the list).
  const namesOf = async (request: SecuredRequest) =>
    new Map(
      (await store.organizationsOf(request.security.principal?.id ?? '')).map(
        (each) => [each.organizationId, each.organizationName] as const,
      ),
    )
  const membersOf = async (request: SecuredRequest, organizationId: string): Promise<TenantMember[]> => {
    const listed = await store.listMembers({
      organizationId,
      actorAccountId: request.security.principal?.id ?? '',
    })
    if (listed.outcome !== 'listed') return []
    return Promise.all(
      listed.members.map(async (member) => ({
        name: await context.organizations.memberName(member.accountId),
        role: member.role,
      })),
    )
  }
  const page = async (request: SecuredRequest, title: string) => ({
    title,
    area: 'tenants' as const,
    viewer: await viewerFor(request.security, context.directory),
  })

  router.get('/tenants', { auth }, async (request, response) => {
    const wanted = request.query.switch
    if (typeof wanted === 'string' && TENANT_ID.test(wanted)) {
      response.redirect(303, `/tenants/${wanted}`)
      return
    }
    sendPage(response, {
      ...(await page(request, 'Your tenants')),
      body: tenantListPage(request.security.snapshot, await namesOf(request)),
    })
  })

  router.get('/tenants/:tenantId', { auth, guards: [requiresTenant()] }, async (request, response) => {
    const tenant = await tenantOf(request)
    sendPage(response, {
      ...(await page(request, tenant.name)),
      body: tenantOverviewPage(
        tenant,
        request.security.snapshot,
        await namesOf(request),
        await membersOf(request, tenant.id),
      ),
    })
  })

  router.get(
    '/tenants/:tenantId/billing',
    { auth, guards: [requiresTenantRole({ roles: ['owner', 'billing'] })] },
    async (request, response) => {
      const tenant = await tenantOf(request)
      sendPage(response, {
        ...(await page(request, `${tenant.name}: billing`)),
        body: tenantBillingPage(tenant),
      })
    },
  )

  router.get(
    '/tenants/:tenantId/settings',
    { auth, guards: [requiresTenantRole({ roles: ['owner'] })] },
    async (request, response) => {
      const tenant = await tenantOf(request)
      sendPage(response, {
        ...(await page(request, `${tenant.name}: settings`)),
        body: tenantSettingsPage(tenant),
      })
    },
  )

  return router
}
