import { requiresTenant, requiresTenantRole } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import { tenantBillingPage, tenantListPage, tenantOverviewPage, tenantSettingsPage } from './tenant-pages.js'

const TENANT_ID = /^[a-z0-9-]{1,64}$/

/**
 * Tenant pages. Each guard reads `:tenantId` from the parsed path and checks it against the snapshot the
 * `authorizationResolver` built for the signed-in user: `/tenants/initech` for someone outside initech is
 * 403, and so is `/tenants/globex/billing` for a viewer of globex.
 */
export function tenantRoutes(security: Pick<Security, 'router'>, context: ReferenceContext): SecureRouter {
  const router = security.router()
  const auth = required(SESSION_MECHANISM)
  const tenantOf = (request: SecuredRequest) => {
    const tenant = context.directory.tenant(String(request.params.tenantId))
    if (tenant === undefined)
      throw new HttpProblem({ status: 404, code: 'tenant.not_found', detail: 'No such tenant' })
    return tenant
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
      body: tenantListPage(request.security.snapshot),
    })
  })

  router.get('/tenants/:tenantId', { auth, guards: [requiresTenant()] }, async (request, response) => {
    const tenant = tenantOf(request)
    sendPage(response, {
      ...(await page(request, tenant.name)),
      body: tenantOverviewPage(tenant, request.security.snapshot),
    })
  })

  router.get(
    '/tenants/:tenantId/billing',
    { auth, guards: [requiresTenantRole({ roles: ['owner', 'billing'] })] },
    async (request, response) => {
      const tenant = tenantOf(request)
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
      const tenant = tenantOf(request)
      sendPage(response, {
        ...(await page(request, `${tenant.name}: settings`)),
        body: tenantSettingsPage(tenant),
      })
    },
  )

  return router
}
