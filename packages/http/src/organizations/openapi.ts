import {
  formOrJsonBody as body,
  instantSchema as instant,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

// The OpenAPI entries of the organization routes. No schema carries an invitation's code or digest:
// the code exists only in the invitation mail.

const TAGS = ['organizations']
const ORGANIZATION = object(
  {
    organizationId: string('The tenant id guards and paths use.'),
    name: string(),
    createdAt: instant,
  },
  ['organizationId', 'name', 'createdAt'],
)
const MEMBERSHIP_PROPERTIES = {
  organizationId: string(),
  accountId: string(),
  role: string('A role of the catalogue (owner, admin, member by default).'),
  joinedAt: instant,
}
const MEMBERSHIP_REQUIRED = ['organizationId', 'accountId', 'role', 'joinedAt']
const MEMBERSHIP = object(MEMBERSHIP_PROPERTIES, MEMBERSHIP_REQUIRED)
const MINE = object({ ...MEMBERSHIP_PROPERTIES, name: string() }, [...MEMBERSHIP_REQUIRED, 'name'])
const INVITATION = object(
  {
    invitationId: string('The flow id the mail link carries beside the code.'),
    organizationId: string(),
    address: string('The normalized address it was sent to; only an account holding it verified accepts.'),
    role: string(),
    inviterAccountId: string(),
    createdAt: instant,
    expiresAt: instant,
  },
  ['invitationId', 'organizationId', 'address', 'role', 'inviterAccountId', 'createdAt', 'expiresAt'],
)
const NOT_FOUND = problem(
  "No such organization among the caller's, no such member or invitation of it (`organizations.not_found`).",
)
const BAD_REQUEST = problem('Malformed input (`organizations.invalid_input`); nothing was written.')
const FORBIDDEN = problem(
  "The caller's role lacks the permission (`organizations.forbidden`), or the role or member acted on ranks above it (`organizations.rank_exceeded`).",
)
const LAST_OWNER = problem('The organization would be left without an owner (`organizations.last_owner`).')
const LIMITED = problem(
  'Too many invitations for the organization or the inviter (`organizations.rate_limited`); see Retry-After.',
)
const UNAVAILABLE = problem('A store is unavailable; see Retry-After. Nothing was changed.')
const common = { '401': problem('Not signed in.'), '404': NOT_FOUND, '503': UNAVAILABLE }
const changed = { '400': BAD_REQUEST, '403': FORBIDDEN, ...common }

export const ORGANIZATION_ROUTE_DOCS = {
  create: {
    tags: TAGS,
    summary: 'Create an organization: the caller is its first owner',
    requestBody: body(
      object(
        {
          name: string(),
          organizationId: string('Optional: 1 to 128 of A-Z a-z 0-9 . _ - (default a random `org_...`).'),
        },
        ['name'],
      ),
    ),
    responses: {
      '201': ok(
        "The organization and the caller's owner membership.",
        object({ organization: ORGANIZATION, membership: MEMBERSHIP }, ['organization', 'membership']),
      ),
      '400': BAD_REQUEST,
      '409': problem('The organization id is taken (`organizations.duplicate`).'),
      '401': problem('Not signed in.'),
      '503': UNAVAILABLE,
    },
  },
  list: {
    tags: TAGS,
    summary: "The caller's organizations, with its role in each",
    responses: {
      '200': ok(
        'By organization id.',
        object({ organizations: { type: 'array', items: MINE } }, ['organizations']),
      ),
      '401': problem('Not signed in.'),
      '503': UNAVAILABLE,
    },
  },
  get: {
    tags: TAGS,
    summary: "One of the caller's organizations, with its role there",
    responses: { '200': ok('The organization.', MINE), ...common },
  },
  members: {
    tags: TAGS,
    summary: "The organization's members by account id, a page at a time",
    parameters: [
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
      },
      {
        name: 'after',
        in: 'query',
        required: false,
        description: 'The `next` of the previous page.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': ok(
        'One page; `next` is null on the last.',
        object({ members: { type: 'array', items: MEMBERSHIP }, next: { type: ['string', 'null'] } }, [
          'members',
          'next',
        ]),
      ),
      '400': BAD_REQUEST,
      ...common,
    },
  },
  role: {
    tags: TAGS,
    summary: "Change a member's role (both the old and the new role at or below the caller's)",
    requestBody: body(object({ role: string() }, ['role'])),
    responses: { '200': ok('The changed membership.', MEMBERSHIP), '409': LAST_OWNER, ...changed },
  },
  remove: {
    tags: TAGS,
    summary: 'Remove a member ranked at or below the caller',
    responses: { '204': { description: 'Removed.' }, '409': LAST_OWNER, ...changed },
  },
  leave: {
    tags: TAGS,
    summary: 'Leave the organization',
    responses: { '204': { description: 'Left.' }, '409': LAST_OWNER, ...common },
  },
  invite: {
    tags: TAGS,
    summary: "Invite an address with a role at or below the caller's; the code goes only into the mail",
    requestBody: body(
      object(
        {
          address: string('An email address.'),
          role: string(),
          lifetimeDays: { type: ['integer', 'string'], minimum: 1, maximum: 30, description: 'Default 7.' },
        },
        ['address', 'role'],
      ),
    ),
    responses: { '201': ok('The pending invitation (no code).', INVITATION), '429': LIMITED, ...changed },
  },
  invitations: {
    tags: TAGS,
    summary: "The organization's pending invitations, newest first",
    responses: {
      '200': ok('No codes.', object({ invitations: { type: 'array', items: INVITATION } }, ['invitations'])),
      '403': FORBIDDEN,
      ...common,
    },
  },
  revoke: {
    tags: TAGS,
    summary: 'Revoke a pending invitation: its code stops working',
    responses: { '204': { description: 'Revoked.' }, ...changed },
  },
  resend: {
    tags: TAGS,
    summary: 'A new code and lifetime, mailed again; the previous code stops working',
    responses: { '200': ok('The invitation (no code).', INVITATION), '429': LIMITED, ...changed },
  },
  accept: {
    tags: TAGS,
    summary: "Accept an invitation for the caller's verified address (the code in the body, never in a URL)",
    requestBody: body(
      object(
        {
          invitationId: string('The `flow` of the mail link.'),
          code: string('The code of the mail (the link carries it in its fragment).'),
        },
        ['invitationId', 'code'],
      ),
    ),
    responses: {
      '200': ok('The new membership.', MEMBERSHIP),
      '400': BAD_REQUEST,
      '403': problem(
        "The caller holds no verified address equal to the invitation's (`organizations.address_mismatch`).",
      ),
      '404': problem('Unknown, revoked or spent invitation, or a wrong code (`organizations.not_found`).'),
      '409': problem(
        'The invitation expired (`organizations.invitation_expired`), or the caller already belongs (`organizations.already_member`).',
      ),
      '401': problem('Not signed in.'),
      '503': UNAVAILABLE,
    },
  },
} satisfies Record<string, OperationDocumentation>
