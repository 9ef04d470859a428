import { requiresTenant } from '@portcullis/core/authorization'
import { ImpersonationRefusedActs } from '@portcullis/core/impersonation'
import { required } from '@portcullis/core/policy'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { Response } from 'express'
import { formBody, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { refuseDuringImpersonation } from '../impersonation/refused-acts.js'
import type { Flash } from '../layout/flash.js'
import { ORGANIZATIONS_PATH, organizationPath } from './organization-pages.js'
import { organizationFlash } from './organization-words.js'

/**
 * The requests to join (`automatic-suggestion`): on `/organizations` a person asks to join an
 * organization suggested by the domain of a verified address of theirs; on the organization's page an
 * owner or admin approves or declines. The asker and the decider are the session's account; the offer is
 * read from the account's verified addresses, the decider's role from the store under its lock, and the
 * membership's role is the catalogue's lowest, never a field of the form (which carries only its CSRF
 * token, checked by the session mechanism as for every other form).
 */
export function joinRequestRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
): SecureRouter {
  const router = security.router()
  const { joinRequests } = context.organizations
  const kit = accountKit(context)
  const form = formBody()
  const auth = required(SESSION_MECHANISM)
  const member = { auth, guards: [requiresTenant({ tenantParameter: 'org' })] }
  const me = (request: SecuredRequest) => kit.accountId(request)
  const orgOf = (request: SecuredRequest) => String(request.params.org)

  const act = async (
    request: SecuredRequest,
    response: Response,
    to: string,
    change: () => Promise<Flash>,
  ) => {
    let flash: Flash
    try {
      flash = await change()
    } catch (error) {
      flash = organizationFlash(error)
      retryHint(response, error)
    }
    kit.flash.set(response, me(request), flash)
    response.redirect(303, to)
  }

  // The asker is not a member: no tenant guard, the flow checks the offer of the account's addresses.
  router.post(`${ORGANIZATIONS_PATH}/:org/join-requests`, { auth }, form, (request, response) =>
    act(request, response, ORGANIZATIONS_PATH, async () => {
      await joinRequests.ask({ organizationId: orgOf(request), accountId: me(request) })
      return { notice: 'Your request to join is sent: an administrator of the organization decides.' }
    }),
  )

  router.post(
    `${ORGANIZATIONS_PATH}/:org/join-requests/:request/approve`,
    member,
    form,
    (request, response) =>
      act(request, response, organizationPath(orgOf(request)), async () => {
        refuseDuringImpersonation(context.impersonations, request, ImpersonationRefusedActs.joinApproval)
        const membership = await joinRequests.approve({
          organizationId: orgOf(request),
          requestId: String(request.params.request),
          actorAccountId: me(request),
        })
        context.organizations.resolver.evict(membership.accountId)
        return { notice: `Approved: they are a member now, as ${membership.role}.` }
      }),
  )

  router.post(
    `${ORGANIZATIONS_PATH}/:org/join-requests/:request/decline`,
    member,
    form,
    (request, response) =>
      act(request, response, organizationPath(orgOf(request)), async () => {
        await joinRequests.decline({
          organizationId: orgOf(request),
          requestId: String(request.params.request),
          actorAccountId: me(request),
        })
        return { notice: 'Declined: nobody joined.' }
      }),
  )

  return router
}
