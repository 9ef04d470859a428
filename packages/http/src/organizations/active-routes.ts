import type { SecurityContext } from '@portcullis/core/authorization'
import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts, SESSION_HANDLE_ATTRIBUTE } from '@portcullis/core/local-accounts'
import {
  type MembershipStore,
  OrganizationError,
  OrganizationErrorCodes,
  sessionActiveOrganization,
  setActiveOrganization,
} from '@portcullis/core/organizations'
import { anyOf } from '@portcullis/core/policy'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import { authRouteTable, jsonAnswer, type NeutralRoute } from '../exchange/exchange.js'
import {
  formOrJsonBody as body,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
} from '../openapi/schema-parts.js'
import { HttpProblem, problems } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'

/** What every adapter's active-organization routes take besides its own `security` and `onError`. */
export interface ActiveOrganizationRouteTableOptions {
  /** Where the caller's memberships are read (never from the request). */
  readonly memberships: Pick<MembershipStore, 'membershipsOf'>
  /** The local sign-ins: its mechanisms authenticate these routes, its sessions keep the choice. */
  readonly local: LocalAccounts
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
}

export const ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS: OptionsShape<ActiveOrganizationRouteTableOptions> = {
  memberships: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

const TAGS = ['organizations']
const ACTIVE = object(
  {
    organizationId: {
      type: ['string', 'null'],
      description: "The session's active organization, or null (none chosen, or no longer a member).",
    },
    role: {
      type: ['string', 'null'],
      description: "The caller's role there, read from the membership store.",
    },
  },
  ['organizationId', 'role'],
)
const common = {
  '401': problem('Not signed in.'),
  '403': problem('Signed in without a session (an access token): the choice lives in the session.'),
  '503': problem('A store is unavailable; see Retry-After. Nothing was changed.'),
}

export const ACTIVE_ORGANIZATION_ROUTE_DOCS = {
  get: {
    tags: TAGS,
    summary: "The session's active organization and the caller's role there",
    responses: { '200': ok('The active organization, or nulls.', ACTIVE), ...common },
  },
  set: {
    tags: TAGS,
    summary: 'Choose the organization this session works in (null clears the choice)',
    requestBody: body(
      object(
        {
          organizationId: {
            type: ['string', 'null'],
            description:
              "One of the caller's organizations; null (or an empty form value) clears the choice.",
          },
        },
        ['organizationId'],
      ),
    ),
    responses: {
      '200': ok('The new choice.', ACTIVE),
      '400': problem('Malformed input (`organizations.invalid_input`); nothing was written.'),
      '404': problem(
        "No such organization among the caller's, whether it exists or not (`organizations.not_found`).",
      ),
      ...common,
    },
  },
} satisfies Record<string, OperationDocumentation>

const INVALID = OrganizationErrorCodes.invalidInput

/** The caller's session: its account and handle, only for the session mechanism's credential. */
function sessionOf(context: SecurityContext): { readonly accountId: string; readonly handle: string } {
  const principal = context.principal
  if (principal === null || principal.kind !== 'user') throw new HttpProblem(problems.authenticationRequired)
  for (const item of context.evidence) {
    const handle = item.attributes?.[SESSION_HANDLE_ATTRIBUTE]
    if (item.credentialType === 'session' && typeof handle === 'string' && handle !== '') {
      return { accountId: principal.id, handle }
    }
  }
  throw new HttpProblem({
    status: 403,
    code: 'organizations.session_required',
    detail: 'The active organization lives in a session; this credential has none',
  })
}

/** `{ organizationId: string | null }`, nothing else; an empty form value clears too. */
function requestedOrganization(value: unknown): string | null {
  const invalid = (detail: string) => new HttpProblem({ status: 400, code: INVALID, detail })
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('the body must be a JSON object or a form')
  }
  const fields = value as Record<string, unknown>
  for (const name of Object.keys(fields)) {
    if (name !== 'organizationId') throw invalid(`${name} is not a member of this request`)
  }
  if (!Object.hasOwn(fields, 'organizationId')) throw invalid('organizationId is required')
  const organizationId = fields.organizationId
  if (organizationId === null || organizationId === '') return null
  if (typeof organizationId !== 'string') throw invalid('organizationId must be a string or null')
  return organizationId
}

const notFound = () =>
  new HttpProblem({ status: 404, code: OrganizationErrorCodes.notFound, detail: 'No such organization' })

/**
 * The active-organization routes under `{base}/auth/`, for a caller signed in with a local session:
 *
 * | Route | Does |
 * | --- | --- |
 * | `GET active-organization` | `{ organizationId, role }` of the session's choice, nulls without one |
 * | `POST active-organization` | `{ organizationId }` (one of the caller's organizations) or `null` |
 *
 * The choice is kept in the session (`LocalAccounts.setActiveOrganization`); the membership is checked
 * against the store when it is made and on every read, so an organization the caller does not belong
 * to is 404 `organizations.not_found` whether it exists or not, and a removed member reads nulls. The
 * role is always the store's. Mount after `localAccountRoutes`: its CSRF check covers the POST.
 */
export function activeOrganizationRouteTable(options: ActiveOrganizationRouteTableOptions): NeutralRoute[] {
  const { memberships, local } = options
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const table = authRouteTable(options.base ?? '')

  const answer = async (accountId: string, organizationId: string | undefined) => {
    if (organizationId === undefined) return jsonAnswer({ organizationId: null, role: null })
    const membership = (await memberships.membershipsOf(accountId)).find(
      (candidate) => candidate.organizationId === organizationId,
    )
    return jsonAnswer(
      membership === undefined
        ? { organizationId: null, role: null }
        : { organizationId, role: membership.role },
    )
  }

  table.add(
    'GET',
    '/active-organization',
    { auth, openapi: ACTIVE_ORGANIZATION_ROUTE_DOCS.get },
    async (exchange) => {
      const { accountId } = sessionOf(exchange.security)
      return answer(accountId, sessionActiveOrganization(exchange.security.evidence))
    },
  )

  table.add(
    'POST',
    '/active-organization',
    { auth, openapi: ACTIVE_ORGANIZATION_ROUTE_DOCS.set },
    async (exchange) => {
      const { accountId, handle } = sessionOf(exchange.security)
      const organizationId = requestedOrganization(await exchange.body(limit))
      let outcome: Awaited<ReturnType<typeof setActiveOrganization>>
      try {
        outcome = await setActiveOrganization(
          { memberships, sessions: local },
          { accountId, sessionHandle: handle, organizationId },
        )
      } catch (error) {
        if (error instanceof OrganizationError && error.code === OrganizationErrorCodes.notFound)
          throw notFound()
        if (error instanceof OrganizationError && error.code === INVALID) {
          throw new HttpProblem({ status: 400, code: INVALID, detail: 'organizationId is malformed' })
        }
        throw error
      }
      if (outcome.outcome === 'session-gone') throw new HttpProblem(problems.authenticationRequired)
      return jsonAnswer(
        outcome.outcome === 'set'
          ? { organizationId: outcome.membership.organizationId, role: outcome.membership.role }
          : { organizationId: null, role: null },
      )
    },
  )

  return table.routes
}
