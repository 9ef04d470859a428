import { randomBytes } from 'node:crypto'
import { integerBetween, isPortcullisError, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import {
  type OrganizationErrorCode,
  OrganizationErrorCodes,
  OrganizationInvitations,
  type OrganizationStores,
  organizationRefusal,
} from '@portcullis/core/organizations'
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
import {
  accountOrganizationBody,
  fieldsOf,
  invitationBody,
  membershipBody,
  organizationBody,
} from './bodies.js'
import { ORGANIZATION_ROUTE_DOCS as DOCS } from './openapi.js'

/** What every adapter's organization routes take besides its own `security` and `onError`. */
export interface OrganizationRouteTableOptions {
  /** The organization, membership and invitation stores (`MemoryOrganizationStore`, `PostgresOrganizationStore`). */
  readonly organizations: Pick<
    OrganizationStores,
    | 'createOrganization'
    | 'organizationsOf'
    | 'listMembers'
    | 'setRole'
    | 'removeMember'
    | 'leave'
    | 'listInvitations'
    | 'revokeInvitation'
  >
  /** The invitation flows over the same stores: invite, resend and accept (the code only in the mail). */
  readonly invitations: OrganizationInvitations
  /** The local sign-ins: its mechanisms authenticate these routes. */
  readonly local: LocalAccounts
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
  readonly clock?: () => number
}

export const ORGANIZATION_ROUTE_TABLE_OPTIONS: OptionsShape<OrganizationRouteTableOptions> = {
  organizations: { required: true, kind: 'object' },
  invitations: {
    required: true,
    kind: 'object',
    check: (value) =>
      value instanceof OrganizationInvitations ? undefined : 'must be an OrganizationInvitations',
  },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  clock: { kind: 'function' },
}

/** The refusals with a status of their own, each with its fixed detail. */
const REFUSALS: Readonly<Partial<Record<OrganizationErrorCode, readonly [number, string]>>> = {
  'organizations.not_found': [404, 'No such organization, member or invitation'],
  'organizations.invalid_input': [400, 'The request is malformed; nothing was written'],
  'organizations.forbidden': [403, "The caller's role lacks the permission this needs"],
  'organizations.rank_exceeded': [403, "The role, or the member acted on, ranks above the caller's own role"],
  'organizations.address_mismatch': [
    403,
    'The invitation was sent to an address this account has not verified',
  ],
  'organizations.duplicate': [409, 'An organization with this id exists'],
  'organizations.last_owner': [409, 'An organization keeps at least one owner'],
  'organizations.invitation_expired': [409, 'The invitation has expired'],
  'organizations.already_member': [409, 'The account already belongs to the organization'],
}

/**
 * An organization refusal as its problem: `not_found` is 404 (no such organization and "not a member"
 * alike); the others keep their stable code with a fixed detail. Anything else (a store outage is
 * 503 with `Retry-After`, a rate limit 429) renders by its class.
 */
function organizationProblem(error: unknown): unknown {
  if (!isPortcullisError(error)) return error
  const refusal = REFUSALS[error.code as OrganizationErrorCode]
  if (refusal === undefined) return error
  return new HttpProblem({ status: refusal[0], code: error.code, detail: refusal[1] })
}

const INVALID = OrganizationErrorCodes.invalidInput

/** `org_` and 22 random base64url characters: an organization id nobody chose, so none is guessed. */
const newOrganizationId = () => `org_${randomBytes(16).toString('base64url')}`

/** The page query of the members list: `limit` (1 to 1000) and `after` (the previous page's `next`). */
function pageOf(query: string): { limit?: number; after?: string } {
  const search = new URLSearchParams(query)
  const page: { limit?: number; after?: string } = {}
  for (const name of search.keys()) {
    if (name !== 'limit' && name !== 'after') {
      throw new HttpProblem({ status: 400, code: INVALID, detail: `${name} is not a query parameter here` })
    }
  }
  const limit = search.get('limit')
  if (limit !== null) {
    if (!/^[0-9]{1,4}$/.test(limit)) {
      throw new HttpProblem({ status: 400, code: INVALID, detail: 'limit must be an integer from 1 to 1000' })
    }
    page.limit = Number(limit)
  }
  const after = search.get('after')
  if (after !== null) page.after = after
  return page
}

/** A JSON number for `lifetimeDays` is taken as its decimal text (forms carry strings only). */
function withTextLifetime(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  const { lifetimeDays } = body as { lifetimeDays?: unknown }
  return typeof lifetimeDays === 'number' ? { ...body, lifetimeDays: String(lifetimeDays) } : body
}

function lifetimeOf(text: string | undefined): { lifetimeDays?: number } {
  if (text === undefined) return {}
  if (!/^[0-9]{1,2}$/.test(text)) {
    throw new HttpProblem({
      status: 400,
      code: INVALID,
      detail: 'lifetimeDays must be an integer from 1 to 30',
    })
  }
  return { lifetimeDays: Number(text) }
}

/**
 * The organization routes under `{base}/auth/`, for a signed-in caller of the local mechanisms. The
 * actor is always the session's account and its role is read from the store under the store's lock,
 * never from the request:
 *
 * | Route | Does |
 * | --- | --- |
 * | `POST organizations` | creates one (`{ name, organizationId? }`); the caller is its first owner |
 * | `GET organizations` | the caller's organizations with its role in each |
 * | `GET organizations/{organizationId}` | one of them |
 * | `GET organizations/{organizationId}/members?limit&after` | its members, by account id |
 * | `POST organizations/{organizationId}/members/{accountId}/role` | changes a role (`{ role }`) |
 * | `POST organizations/{organizationId}/members/{accountId}/remove` | removes a member |
 * | `POST organizations/{organizationId}/leave` | the caller leaves |
 * | `POST organizations/{organizationId}/invitations` | invites (`{ address, role, lifetimeDays? }`); the code goes only into the mail |
 * | `GET organizations/{organizationId}/invitations` | the pending invitations |
 * | `POST organizations/{organizationId}/invitations/{invitationId}/revoke` | revokes one |
 * | `POST organizations/{organizationId}/invitations/{invitationId}/resend` | a new code and lifetime, mailed again |
 * | `POST organizations/invitations/accept` | accepts (`{ invitationId, code }`) for the caller's verified address |
 *
 * An organization the caller does not belong to, another organization's member or invitation, and a
 * wrong, replayed or revoked code are all 404 `organizations.not_found`, whatever exists.
 */
export function organizationRouteTable(options: OrganizationRouteTableOptions): NeutralRoute[] {
  const { organizations, invitations, local } = options
  const clock = options.clock ?? Date.now
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const table = authRouteTable(options.base ?? '')
  const add = (
    method: HttpMethod,
    path: string,
    openapi: OperationDocumentation,
    handle: (exchange: HttpExchange, actor: string) => Promise<HttpAnswer>,
  ) =>
    table.add(method, path, { auth, openapi }, async (exchange) => {
      const { accountId } = requireLocalSession(exchange.security)
      try {
        return await handle(exchange, accountId)
      } catch (error) {
        throw organizationProblem(error)
      }
    })
  const now = () => new Date(clock())
  const settled = <T extends { outcome: string }, K extends T['outcome']>(
    result: T,
    success: K,
  ): Extract<T, { outcome: K }> => {
    if (result.outcome !== success) throw organizationRefusal(result.outcome)
    return result as Extract<T, { outcome: K }>
  }
  const body = async (exchange: HttpExchange) => withTextLifetime(await exchange.body(limit))
  const org = (exchange: HttpExchange) => String(exchange.params.organizationId)

  // Declared before the `{organizationId}` routes: routers that match in order see it first.
  add('POST', '/organizations/invitations/accept', DOCS.accept, async (exchange, actor) => {
    const fields = fieldsOf(await exchange.body(limit), ['invitationId', 'code'], [], INVALID)
    const membership = await invitations.accept({ ...fields, accountId: actor })
    return jsonAnswer(membershipBody(membership))
  })

  add('POST', '/organizations', DOCS.create, async (exchange, actor) => {
    const fields = fieldsOf(await exchange.body(limit), ['name'], ['organizationId'], INVALID)
    const created = settled(
      await organizations.createOrganization({
        organizationId: fields.organizationId ?? newOrganizationId(),
        name: fields.name,
        ownerAccountId: actor,
        now: now(),
      }),
      'created',
    )
    return jsonAnswer(
      {
        organization: organizationBody(created.organization),
        membership: membershipBody(created.membership),
      },
      201,
    )
  })

  add('GET', '/organizations', DOCS.list, async (_exchange, actor) => {
    const mine = await organizations.organizationsOf(actor)
    return jsonAnswer({ organizations: mine.map(accountOrganizationBody) })
  })

  add('GET', '/organizations/:organizationId', DOCS.get, async (exchange, actor) => {
    const organizationId = org(exchange)
    const found = (await organizations.organizationsOf(actor)).find(
      (entry) => entry.organizationId === organizationId,
    )
    if (found === undefined) throw organizationRefusal('not-found')
    return jsonAnswer(accountOrganizationBody(found))
  })

  add('GET', '/organizations/:organizationId/members', DOCS.members, async (exchange, actor) => {
    const page = pageOf(exchange.query)
    const listed = settled(
      await organizations.listMembers({ organizationId: org(exchange), actorAccountId: actor, ...page }),
      'listed',
    )
    const full = listed.members.length === (page.limit ?? 100)
    return jsonAnswer({
      members: listed.members.map(membershipBody),
      next: full ? (listed.members.at(-1)?.accountId ?? null) : null,
    })
  })

  add(
    'POST',
    '/organizations/:organizationId/members/:accountId/role',
    DOCS.role,
    async (exchange, actor) => {
      const fields = fieldsOf(await exchange.body(limit), ['role'], [], INVALID)
      const changed = settled(
        await organizations.setRole({
          organizationId: org(exchange),
          actorAccountId: actor,
          accountId: String(exchange.params.accountId),
          role: fields.role,
          now: now(),
        }),
        'changed',
      )
      return jsonAnswer(membershipBody(changed.membership))
    },
  )

  add(
    'POST',
    '/organizations/:organizationId/members/:accountId/remove',
    DOCS.remove,
    async (exchange, actor) => {
      settled(
        await organizations.removeMember({
          organizationId: org(exchange),
          actorAccountId: actor,
          accountId: String(exchange.params.accountId),
          now: now(),
        }),
        'removed',
      )
      return { status: 204 }
    },
  )

  add('POST', '/organizations/:organizationId/leave', DOCS.leave, async (exchange, actor) => {
    settled(
      await organizations.leave({ organizationId: org(exchange), accountId: actor, now: now() }),
      'left',
    )
    return { status: 204 }
  })

  add('POST', '/organizations/:organizationId/invitations', DOCS.invite, async (exchange, actor) => {
    const fields = fieldsOf(await body(exchange), ['address', 'role'], ['lifetimeDays'], INVALID)
    const invitation = await invitations.invite({
      organizationId: org(exchange),
      inviterAccountId: actor,
      address: fields.address,
      role: fields.role,
      ...lifetimeOf(fields.lifetimeDays),
    })
    return jsonAnswer(invitationBody(invitation), 201)
  })

  add('GET', '/organizations/:organizationId/invitations', DOCS.invitations, async (exchange, actor) => {
    const listed = settled(
      await organizations.listInvitations({
        organizationId: org(exchange),
        actorAccountId: actor,
        now: now(),
      }),
      'listed',
    )
    return jsonAnswer({ invitations: listed.invitations.map(invitationBody) })
  })

  add(
    'POST',
    '/organizations/:organizationId/invitations/:invitationId/revoke',
    DOCS.revoke,
    async (exchange, actor) => {
      settled(
        await organizations.revokeInvitation({
          organizationId: org(exchange),
          invitationId: String(exchange.params.invitationId),
          actorAccountId: actor,
          now: now(),
        }),
        'revoked',
      )
      return { status: 204 }
    },
  )

  add(
    'POST',
    '/organizations/:organizationId/invitations/:invitationId/resend',
    DOCS.resend,
    async (exchange, actor) => {
      const invitation = await invitations.resend({
        organizationId: org(exchange),
        invitationId: String(exchange.params.invitationId),
        actorAccountId: actor,
      })
      return jsonAnswer(invitationBody(invitation))
    },
  )

  return table.routes
}
