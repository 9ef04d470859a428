import type { EmailAddresses } from '@portcullis/core/accounts'
import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import {
  type DomainEnrollmentMode,
  type OrganizationDomainClaim,
  OrganizationDomainError,
  OrganizationDomainErrorCodes,
  type OrganizationDomains,
  OrganizationJoinRequests,
} from '@portcullis/core/organization-domains'
import type { MembershipStore } from '@portcullis/core/organizations'
import { anyOf } from '@portcullis/core/policy'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import {
  authRouteTable,
  type HttpAnswer,
  type HttpExchange,
  jsonAnswer,
  type NeutralRoute,
} from '../exchange/exchange.js'
import { requireLocalSession } from '../oauth/session.js'
import { HttpProblem } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'
import type { HttpMethod } from '../routing/route-registry.js'
import { fieldsOf } from './bodies.js'
import { ORGANIZATION_DOMAIN_ROUTE_DOCS as DOCS } from './domain-openapi.js'
import { addJoinRequestRoutes } from './join-request-routes.js'

/** What every adapter's organization-domain routes take besides its own `security` and `onError`. */
export interface OrganizationDomainRouteTableOptions {
  /** The verified-domain flows (`createOrganizationDomains`). */
  readonly domains: OrganizationDomains
  /** Where the caller's role in the organization is read (never from the request). */
  readonly memberships: Pick<MembershipStore, 'membershipsOf'>
  /** Where the caller's verified addresses are read for the enrollment offers. */
  readonly accounts: Pick<EmailAddresses, 'listEmailAddresses'>
  /** The local sign-ins: its mechanisms authenticate these routes. */
  readonly local: LocalAccounts
  /**
   * The requests to join (`OrganizationJoinRequests`): with it, the caller asks to join an organization
   * offering its verified address's domain in `automatic-suggestion` mode, and managers approve or
   * decline (`addJoinRequestRoutes`). Without it those routes are not there.
   */
  readonly joinRequests?: OrganizationJoinRequests
  /** The roles that may claim, verify, change and remove the organization's domains. Default `['owner']`. */
  readonly managerRoles?: readonly string[]
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
}

export const ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS: OptionsShape<OrganizationDomainRouteTableOptions> = {
  domains: { required: true, kind: 'object' },
  memberships: { required: true, kind: 'object' },
  accounts: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  joinRequests: {
    kind: 'object',
    check: (value) =>
      value instanceof OrganizationJoinRequests ? undefined : 'must be an OrganizationJoinRequests',
  },
  managerRoles: { kind: 'array', elements: { kind: 'string' } },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

function claimBody({ claim, recordName, recordValue }: OrganizationDomainClaim): Record<string, unknown> {
  return {
    id: claim.id,
    domain: claim.domain,
    enrollment: claim.enrollment,
    createdAt: claim.createdAt.toISOString(),
    verifiedAt: claim.verifiedAt?.toISOString() ?? null,
    recordName,
    recordValue,
  }
}

const INVALID = OrganizationDomainErrorCodes.invalidInput

const organizationNotFound = () =>
  new HttpProblem({ status: 404, code: 'organizations.not_found', detail: 'No such organization' })
const claimNotFound = () =>
  new HttpProblem({
    status: 404,
    code: OrganizationDomainErrorCodes.notFound,
    detail: 'No such domain claim',
  })

/**
 * The organization-domain routes under `{base}/auth/`, for a signed-in caller of the local mechanisms:
 *
 * | Route | Who | Does |
 * | --- | --- | --- |
 * | `GET organizations/{organizationId}/domains` | manager | the claims with their TXT records |
 * | `POST organizations/{organizationId}/domains` | manager | claims a domain (`{ domain, enrollment? }`) |
 * | `POST organizations/{organizationId}/domains/{domainId}/verify` | manager | looks the TXT record up |
 * | `POST organizations/{organizationId}/domains/{domainId}/enrollment` | manager | sets the mode |
 * | `POST organizations/{organizationId}/domains/{domainId}/remove` | manager | removes the claim |
 * | `GET organization-offers` | anyone signed in | organizations open to the caller's verified addresses |
 *
 * A manager is a member whose role, read from the membership store, is one of `managerRoles`. An
 * organization the caller does not belong to is 404 (`organizations.not_found`), whatever exists; a
 * member of another role 403 (`organization_domains.forbidden`); another organization's claim id 404.
 */
export function organizationDomainRouteTable(options: OrganizationDomainRouteTableOptions): NeutralRoute[] {
  const { domains, memberships, accounts, local } = options
  const managers = new Set(options.managerRoles ?? ['owner'])
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const table = authRouteTable(options.base ?? '')
  const add = (
    method: HttpMethod,
    path: string,
    openapi: OperationDocumentation,
    handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
  ) => table.add(method, path, { auth, openapi }, handle)

  /** The organization of the path, once the caller's stored role there may manage its domains. */
  const managedOrganization = async (exchange: HttpExchange): Promise<string> => {
    const { accountId } = requireLocalSession(exchange.security)
    const organizationId = String(exchange.params.organizationId)
    const membership = (await memberships.membershipsOf(accountId)).find(
      (candidate) => candidate.organizationId === organizationId,
    )
    if (membership === undefined) throw organizationNotFound()
    if (!managers.has(membership.role)) {
      throw new HttpProblem({
        status: 403,
        code: 'organization_domains.forbidden',
        detail: "This role may not manage the organization's domains",
      })
    }
    return organizationId
  }
  const claimOf = async (organizationId: string, id: string): Promise<OrganizationDomainClaim> => {
    const found = (await domains.list(organizationId)).find((entry) => entry.claim.id === id)
    if (found === undefined) throw claimNotFound()
    return found
  }
  const translated = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      if (error instanceof OrganizationDomainError && error.code === OrganizationDomainErrorCodes.notFound) {
        throw claimNotFound()
      }
      throw error
    }
  }

  add('GET', '/organizations/:organizationId/domains', DOCS.list, async (exchange) => {
    const organizationId = await managedOrganization(exchange)
    return jsonAnswer({ domains: (await domains.list(organizationId)).map(claimBody) })
  })

  add('POST', '/organizations/:organizationId/domains', DOCS.claim, async (exchange) => {
    const organizationId = await managedOrganization(exchange)
    const fields = fieldsOf(await exchange.body(limit), ['domain'], ['enrollment'], INVALID)
    const claimed = await domains.claim({
      organizationId,
      domain: fields.domain,
      // The manager's own id, from the verified principal: automatic invitations go in their name.
      managerAccountId: requireLocalSession(exchange.security).accountId,
      ...(fields.enrollment === undefined ? {} : { enrollment: fields.enrollment as DomainEnrollmentMode }),
    })
    return jsonAnswer(claimBody(claimed), 201)
  })

  add('POST', '/organizations/:organizationId/domains/:domainId/verify', DOCS.verify, async (exchange) => {
    const organizationId = await managedOrganization(exchange)
    const id = String(exchange.params.domainId)
    await translated(() => domains.verify({ organizationId, id }))
    return jsonAnswer(claimBody(await claimOf(organizationId, id)))
  })

  add(
    'POST',
    '/organizations/:organizationId/domains/:domainId/enrollment',
    DOCS.enrollment,
    async (exchange) => {
      const organizationId = await managedOrganization(exchange)
      const id = String(exchange.params.domainId)
      const fields = fieldsOf(await exchange.body(limit), ['enrollment'], [], INVALID)
      await translated(() =>
        domains.setEnrollment({
          organizationId,
          id,
          enrollment: fields.enrollment as DomainEnrollmentMode,
          managerAccountId: requireLocalSession(exchange.security).accountId,
        }),
      )
      return jsonAnswer(claimBody(await claimOf(organizationId, id)))
    },
  )

  add('POST', '/organizations/:organizationId/domains/:domainId/remove', DOCS.remove, async (exchange) => {
    const organizationId = await managedOrganization(exchange)
    await translated(() => domains.remove({ organizationId, id: String(exchange.params.domainId) }))
    return { status: 204 }
  })

  add('GET', '/organization-offers', DOCS.offers, async (exchange) => {
    const { accountId } = requireLocalSession(exchange.security)
    const addresses = await accounts.listEmailAddresses(accountId)
    return jsonAnswer({ offers: await domains.enrollmentFor(addresses) })
  })

  if (options.joinRequests !== undefined) {
    addJoinRequestRoutes(add, options.joinRequests, (exchange) => exchange.body(limit))
  }

  return table.routes
}
