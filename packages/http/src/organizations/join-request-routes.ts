import { isPortcullisError } from '@portcullis/core/errors'
import type { OrganizationJoinRequests } from '@portcullis/core/organization-domains'
import {
  type JoinRequest,
  type OrganizationErrorCode,
  OrganizationErrorCodes,
} from '@portcullis/core/organizations'
import type { HttpAnswer, HttpExchange } from '../exchange/exchange.js'
import { jsonAnswer } from '../exchange/exchange.js'
import { requireLocalSession } from '../oauth/session.js'
import { HttpProblem } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'
import type { HttpMethod } from '../routing/route-registry.js'
import { fieldsOf, membershipBody } from './bodies.js'
import { JOIN_REQUEST_ROUTE_DOCS as DOCS } from './join-request-openapi.js'

type Add = (
  method: HttpMethod,
  path: string,
  openapi: OperationDocumentation,
  handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
) => void

/** The refusals of the join-request flows, each with its status and fixed detail. */
const REFUSALS: Readonly<Partial<Record<OrganizationErrorCode, readonly [number, string]>>> = {
  'organizations.not_found': [404, 'No such organization or request to join'],
  'organizations.invalid_input': [400, 'The request is malformed; nothing was written'],
  'organizations.forbidden': [403, "The caller's role lacks the permission this needs"],
  'organizations.rank_exceeded': [403, "The join role ranks above the caller's own role"],
  'organizations.address_mismatch': [404, 'No such organization or request to join'],
  'organizations.already_member': [409, 'The account already belongs to the organization'],
  'organizations.join_request_limit': [409, 'The organization holds as many pending requests as it may'],
}

function joinProblem(error: unknown): unknown {
  if (!isPortcullisError(error)) return error
  const refusal = REFUSALS[error.code as OrganizationErrorCode]
  if (refusal === undefined) return error
  // An address no longer verified reads as "nothing offered", like any organization the caller can't ask.
  const code =
    error.code === OrganizationErrorCodes.addressMismatch ? OrganizationErrorCodes.notFound : error.code
  return new HttpProblem({ status: refusal[0], code, detail: refusal[1] })
}

export function joinRequestBody(request: JoinRequest): Record<string, unknown> {
  return {
    requestId: request.requestId,
    organizationId: request.organizationId,
    accountId: request.accountId,
    address: request.address,
    createdAt: request.createdAt.toISOString(),
  }
}

/**
 * The requests to join, added to the organization-domain routes when `joinRequests` is given:
 *
 * | Route | Who | Does |
 * | --- | --- | --- |
 * | `POST organization-offers/{organizationId}/join-requests` | anyone signed in | asks to join |
 * | `GET organization-offers/join-requests` | anyone signed in | the caller's own pending requests |
 * | `POST organization-offers/{organizationId}/join-requests/{requestId}/withdraw` | the asker | withdraws it |
 * | `GET organizations/{organizationId}/join-requests` | manager | the pending requests |
 * | `POST organizations/{organizationId}/join-requests/{requestId}/approve` | manager | the asker joins |
 * | `POST organizations/{organizationId}/join-requests/{requestId}/decline` | manager | removes it |
 *
 * The asker is the session's account and the offer is read from its verified addresses, never from
 * the body (which takes no member). A manager holds `organization.invitations.manage` in its stored
 * role, read by the store under the organization's lock. Another organization's request id, an
 * organization the caller does not belong to and one that offers the caller nothing are all 404.
 */
export function addJoinRequestRoutes(
  add: Add,
  joinRequests: OrganizationJoinRequests,
  readBody: (exchange: HttpExchange) => Promise<unknown>,
): void {
  const guarded =
    (handle: (exchange: HttpExchange, actor: string) => Promise<HttpAnswer>) =>
    async (exchange: HttpExchange): Promise<HttpAnswer> => {
      const { accountId } = requireLocalSession(exchange.security)
      try {
        return await handle(exchange, accountId)
      } catch (error) {
        throw joinProblem(error)
      }
    }
  /** A POST here takes no body member: anything named is refused, never read. */
  const noMembers = async (exchange: HttpExchange) =>
    fieldsOf((await readBody(exchange)) ?? {}, [], [], OrganizationErrorCodes.invalidInput)
  const ids = (exchange: HttpExchange) => ({
    organizationId: String(exchange.params.organizationId),
    requestId: String(exchange.params.requestId),
  })

  // Declared before the `{organizationId}` routes: routers that match in order see it first.
  add(
    'GET',
    '/organization-offers/join-requests',
    DOCS.mine,
    guarded(async (_exchange, actor) =>
      jsonAnswer({ joinRequests: (await joinRequests.mine(actor)).map(joinRequestBody) }),
    ),
  )
  add(
    'POST',
    '/organization-offers/:organizationId/join-requests',
    DOCS.ask,
    guarded(async (exchange, actor) => {
      await noMembers(exchange)
      const asked = await joinRequests.ask({
        organizationId: String(exchange.params.organizationId),
        accountId: actor,
      })
      return jsonAnswer(joinRequestBody(asked), 201)
    }),
  )
  add(
    'POST',
    '/organization-offers/:organizationId/join-requests/:requestId/withdraw',
    DOCS.withdraw,
    guarded(async (exchange, actor) => {
      await noMembers(exchange)
      await joinRequests.withdraw({ ...ids(exchange), accountId: actor })
      return { status: 204 }
    }),
  )
  add(
    'GET',
    '/organizations/:organizationId/join-requests',
    DOCS.list,
    guarded(async (exchange, actor) => {
      const listed = await joinRequests.list({
        organizationId: String(exchange.params.organizationId),
        actorAccountId: actor,
      })
      return jsonAnswer({ joinRequests: listed.map(joinRequestBody) })
    }),
  )
  add(
    'POST',
    '/organizations/:organizationId/join-requests/:requestId/approve',
    DOCS.approve,
    guarded(async (exchange, actor) => {
      await noMembers(exchange)
      const membership = await joinRequests.approve({ ...ids(exchange), actorAccountId: actor })
      return jsonAnswer(membershipBody(membership))
    }),
  )
  add(
    'POST',
    '/organizations/:organizationId/join-requests/:requestId/decline',
    DOCS.decline,
    guarded(async (exchange, actor) => {
      await noMembers(exchange)
      await joinRequests.decline({ ...ids(exchange), actorAccountId: actor })
      return { status: 204 }
    }),
  )
}
