import type { AccountEmail } from '@portcullis/core/account-email'
import type { AccountStore } from '@portcullis/core/accounts'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { SecureRouter, Security } from '@portcullis/express'
import type { ReferenceContext } from '../app-context.js'
import { domainRoutes } from './domain-routes.js'
import { invitationRoutes } from './invitation-routes.js'
import { joinRequestRoutes } from './join-request-routes.js'
import { organizationRoutes } from './organization-routes.js'

/**
 * The organization pages (`/organizations`, one organization's members and invitations) and the
 * invitation mail's pages (accept, sign up with the invited address, verify it), and the domains page
 * (claim, the TXT record, verify), and the requests to join (ask, approve, decline), in mounting order.
 */
export function organizationRouters(
  security: Pick<Security, 'router' | 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: {
    readonly local: LocalAccounts
    readonly accountEmail: AccountEmail
    readonly accounts: Pick<AccountStore, 'findPassword'>
    readonly wake?: () => void
  },
): readonly SecureRouter[] {
  return [
    invitationRoutes(security, context, options),
    organizationRoutes(security, context, options),
    joinRequestRoutes(security, context),
    domainRoutes(security, context, options),
  ]
}
