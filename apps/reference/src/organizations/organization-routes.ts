import { requiresTenant } from '@portcullis/core/authorization'
import { ImpersonationRefusedActs } from '@portcullis/core/impersonation'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { activeOrganizationOf, setActiveOrganization } from '@portcullis/core/organizations'
import { required } from '@portcullis/core/policy'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { Response } from 'express'
import { anonymousForms } from '../accounts/anonymous-forms.js'
import { field, formBody, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import { refuseDuringImpersonation } from '../impersonation/refused-acts.js'
import type { Flash } from '../layout/flash.js'
import type { SafeHtml } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import {
  type MemberRow,
  ORGANIZATIONS_PATH,
  organizationListPage,
  organizationPage,
  organizationPath,
} from './organization-pages.js'
import { organizationFlash, refusedBy } from './organization-words.js'

/**
 * The organization pages of a signed-in person: their organizations (and a new one), and one
 * organization's members (change a role, remove, leave), invitations by email and the pending ones
 * (resend, revoke). The actor is always the session's account; ids in paths prove nothing (the store
 * checks the actor's own membership and rank under the organization's lock), and the tenant guard turns
 * away non-members first. Every form posts (CSRF-checked), then redirects to the page with what happened.
 */
export function organizationRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  options: {
    readonly local: LocalAccounts
    /** Sends the invitation mail now rather than at the drain's next poll. */
    readonly wake?: () => void
  },
): SecureRouter {
  const router = security.router()
  const { store, invitations } = context.organizations
  const kit = accountKit(context)
  const forms = anonymousForms(options.local)
  const form = formBody()
  const auth = required(SESSION_MECHANISM)
  const member = { auth, guards: [requiresTenant({ tenantParameter: 'org' })] }
  const me = (request: SecuredRequest) => kit.accountId(request)
  const orgOf = (request: SecuredRequest) => String(request.params.org)
  const now = () => new Date()

  const show = async (request: SecuredRequest, response: Response, title: string, body: SafeHtml) => {
    response.setHeader('Cache-Control', 'no-store')
    const viewer = await viewerFor(request.security, context.directory)
    sendPage(response, { title, area: 'tenants', viewer, body })
  }
  /** Runs a change, then 303 to `to` with its notice, or with the refusal in words. */
  const act = async (
    request: SecuredRequest,
    response: Response,
    to: string,
    change: () => Promise<Flash>,
    errorField?: string,
  ) => {
    let flash: Flash
    try {
      flash = await change()
    } catch (error) {
      flash = organizationFlash(error, errorField)
      retryHint(response, error)
    }
    kit.flash.set(response, me(request), flash)
    response.redirect(303, to)
  }

  router.get(ORGANIZATIONS_PATH, { auth }, async (request, response) => {
    const mine = await store.organizationsOf(me(request))
    await show(
      request,
      response,
      'Your organizations',
      organizationListPage({
        mine,
        active: activeOrganizationOf(request.security.snapshot)?.organizationId,
        csrfToken: forms.token(request, response),
        flash: kit.take(request, response),
        suggestions: await context.organizations.suggestionsFor(me(request)),
      }),
    )
  })

  router.post(ORGANIZATIONS_PATH, { auth }, form, (request, response) =>
    act(
      request,
      response,
      ORGANIZATIONS_PATH,
      async () => {
        const created = await store.createOrganization({
          organizationId: field(request, 'organization_id'),
          name: field(request, 'name'),
          ownerAccountId: me(request),
          now: now(),
        })
        if (created.outcome !== 'created') refusedBy('not-found')
        context.organizations.resolver.evict(me(request))
        return { notice: `${created.organization.name} is created; you are its owner.` }
      },
      'organization_id',
    ),
  )

  // The session's active organization (a choice kept in the session, never a grant): the store checks
  // the membership first; the tenant guards still read the organization from the path.
  router.post(`${ORGANIZATIONS_PATH}/active`, { auth }, form, (request, response) =>
    act(request, response, ORGANIZATIONS_PATH, async () => {
      const session = kit.session(request)
      const wanted = field(request, 'organization_id')
      const outcome =
        session === undefined
          ? ({ outcome: 'session-gone' } as const)
          : await setActiveOrganization(
              { memberships: store, sessions: options.local },
              {
                accountId: me(request),
                sessionHandle: session.sessionHandle,
                organizationId: wanted === '' ? null : wanted,
              },
            )
      if (outcome.outcome === 'session-gone') refusedBy('not-found')
      return outcome.outcome === 'set'
        ? { notice: 'That is now the active organization of this session.' }
        : { notice: 'This session has no active organization now.' }
    }),
  )

  router.get(`${ORGANIZATIONS_PATH}/:org`, member, async (request, response) => {
    const organizationId = orgOf(request)
    const held = request.security.snapshot.tenantRoles(organizationId)
    const [organization, listed] = await Promise.all([
      store.getOrganization(organizationId),
      store.listMembers({ organizationId, actorAccountId: me(request) }),
    ])
    if (organization === null || listed.outcome !== 'listed') return refusedBy('not-found')
    const pending = await store.listInvitations({ organizationId, actorAccountId: me(request), now: now() })
    const asking = await store.listJoinRequests({ organizationId, actorAccountId: me(request) })
    const members: MemberRow[] = await Promise.all(
      listed.members.map(async (each) => ({
        accountId: each.accountId,
        name: await context.organizations.memberName(each.accountId),
        role: each.role,
        joinedAt: each.joinedAt,
      })),
    )
    await show(
      request,
      response,
      organization.name,
      organizationPage({
        organizationId,
        name: organization.name,
        held,
        viewerId: me(request),
        members,
        invitations: pending.outcome === 'listed' ? pending.invitations : [],
        joinRequests: asking.outcome === 'listed' ? asking.joinRequests : [],
        roles: context.organizations.roles,
        csrfToken: forms.token(request, response),
        flash: kit.take(request, response),
        now: now(),
      }),
    )
  })

  router.post(`${ORGANIZATIONS_PATH}/:org/members/:account/role`, member, form, (request, response) =>
    act(request, response, organizationPath(orgOf(request)), async () => {
      const role = field(request, 'role')
      const changed = await store.setRole({
        organizationId: orgOf(request),
        actorAccountId: me(request),
        accountId: String(request.params.account),
        role,
        now: now(),
      })
      if (changed.outcome !== 'changed') refusedBy(changed.outcome)
      return { notice: `The role is now ${role}.` }
    }),
  )

  router.post(`${ORGANIZATIONS_PATH}/:org/members/:account/remove`, member, form, (request, response) =>
    act(request, response, organizationPath(orgOf(request)), async () => {
      const removed = await store.removeMember({
        organizationId: orgOf(request),
        actorAccountId: me(request),
        accountId: String(request.params.account),
        now: now(),
      })
      if (removed.outcome !== 'removed') refusedBy(removed.outcome)
      return { notice: 'The member is removed: their tenant pages are refused on every instance.' }
    }),
  )

  router.post(`${ORGANIZATIONS_PATH}/:org/leave`, member, form, async (request, response) => {
    const organizationId = orgOf(request)
    try {
      const left = await store.leave({ organizationId, accountId: me(request), now: now() })
      if (left.outcome !== 'left') refusedBy(left.outcome)
      kit.flash.set(response, me(request), { notice: 'You left the organization.' })
      response.redirect(303, ORGANIZATIONS_PATH)
    } catch (error) {
      kit.flash.set(response, me(request), organizationFlash(error))
      response.redirect(303, organizationPath(organizationId))
    }
  })

  router.post(`${ORGANIZATIONS_PATH}/:org/invitations`, member, form, (request, response) =>
    act(
      request,
      response,
      organizationPath(orgOf(request)),
      async () => {
        refuseDuringImpersonation(context.impersonations, request, ImpersonationRefusedActs.invitation)
        const invitation = await invitations.invite({
          organizationId: orgOf(request),
          inviterAccountId: me(request),
          address: field(request, 'email'),
          role: field(request, 'role'),
        })
        options.wake?.()
        return { notice: `The invitation is on its way to ${invitation.address}.` }
      },
      'email',
    ),
  )

  router.post(
    `${ORGANIZATIONS_PATH}/:org/invitations/:invitation/resend`,
    member,
    form,
    (request, response) =>
      act(request, response, organizationPath(orgOf(request)), async () => {
        const invitation = await invitations.resend({
          organizationId: orgOf(request),
          invitationId: String(request.params.invitation),
          actorAccountId: me(request),
        })
        options.wake?.()
        return { notice: `A new code is on its way to ${invitation.address}; the old one no longer works.` }
      }),
  )

  router.post(
    `${ORGANIZATIONS_PATH}/:org/invitations/:invitation/revoke`,
    member,
    form,
    (request, response) =>
      act(request, response, organizationPath(orgOf(request)), async () => {
        const revoked = await store.revokeInvitation({
          organizationId: orgOf(request),
          invitationId: String(request.params.invitation),
          actorAccountId: me(request),
          now: now(),
        })
        if (revoked.outcome !== 'revoked') refusedBy(revoked.outcome)
        return { notice: 'The invitation is revoked: its code no longer works.' }
      }),
  )

  return router
}
