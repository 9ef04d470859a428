import {
  formOrJsonBody as body,
  instantSchema as instant,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

// The OpenAPI entries of the requests to join (a verified domain in `automatic-suggestion` mode).

const TAGS = ['organization domains']
const JOIN_REQUEST = object(
  {
    requestId: string('The request id: `join-requests/{requestId}/...` acts on it.'),
    organizationId: string(),
    accountId: string('The account asking.'),
    address: string("The asker's verified address at the organization's verified domain."),
    createdAt: instant,
  },
  ['requestId', 'organizationId', 'accountId', 'address', 'createdAt'],
)
const MEMBERSHIP = object(
  { organizationId: string(), accountId: string(), role: string(), joinedAt: instant },
  ['organizationId', 'accountId', 'role', 'joinedAt'],
)
const EMPTY = body(object({}, []))
const BAD_REQUEST = problem(
  'Malformed ids, or a body member this request does not take (`organizations.invalid_input`); nothing was written.',
)
const NOT_FOUND = problem(
  "No such organization among the caller's, or no such pending request of it (`organizations.not_found`).",
)
const UNAVAILABLE = problem('A store is unavailable; see Retry-After. Nothing was changed.')
const MANAGER = {
  '400': BAD_REQUEST,
  '401': problem('Not signed in.'),
  '403': problem(
    "The caller's role lacks `organization.invitations.manage` (`organizations.forbidden`), or the join role ranks above it (`organizations.rank_exceeded`).",
  ),
  '404': NOT_FOUND,
  '503': UNAVAILABLE,
}

export const JOIN_REQUEST_ROUTE_DOCS = {
  ask: {
    tags: TAGS,
    summary:
      'Ask to join an organization that holds, verified in automatic-suggestion mode, the domain of a verified address of the caller',
    requestBody: EMPTY,
    responses: {
      '201': ok('The pending request (or the pending one the caller already has).', JOIN_REQUEST),
      '400': BAD_REQUEST,
      '401': problem('Not signed in.'),
      '404': problem(
        'The organization offers the caller nothing to ask: no verified address of the caller at a domain it holds verified in automatic-suggestion mode (`organizations.not_found`).',
      ),
      '409': problem(
        'The caller is a member already (`organizations.already_member`), or the organization holds as many pending requests as it may (`organizations.join_request_limit`).',
      ),
      '503': UNAVAILABLE,
    },
  },
  mine: {
    tags: TAGS,
    summary: "The caller's own pending requests to join, newest first",
    responses: {
      '200': ok(
        'The pending requests.',
        object({ joinRequests: { type: 'array', items: JOIN_REQUEST } }, ['joinRequests']),
      ),
      '401': problem('Not signed in.'),
      '503': UNAVAILABLE,
    },
  },
  withdraw: {
    tags: TAGS,
    summary: 'Withdraw one of the caller’s own pending requests',
    requestBody: EMPTY,
    responses: {
      '204': { description: 'Withdrawn.' },
      '400': BAD_REQUEST,
      '401': problem('Not signed in.'),
      '404': NOT_FOUND,
      '503': UNAVAILABLE,
    },
  },
  list: {
    tags: TAGS,
    summary: "The organization's pending requests to join, newest first (managers)",
    responses: {
      '200': ok(
        'The pending requests (at most 100).',
        object({ joinRequests: { type: 'array', items: JOIN_REQUEST } }, ['joinRequests']),
      ),
      ...MANAGER,
    },
  },
  approve: {
    tags: TAGS,
    summary:
      "Approve a request: the asker becomes a member with the store's join role (never a role from the request), in the transaction that removes the request",
    requestBody: EMPTY,
    responses: {
      '200': ok('The new membership.', MEMBERSHIP),
      '409': problem('The asker joined meanwhile (`organizations.already_member`); the request is gone.'),
      ...MANAGER,
    },
  },
  decline: {
    tags: TAGS,
    summary: 'Decline a request: it is removed, nobody joins',
    requestBody: EMPTY,
    responses: { '204': { description: 'Declined.' }, ...MANAGER },
  },
} satisfies Record<string, OperationDocumentation>
