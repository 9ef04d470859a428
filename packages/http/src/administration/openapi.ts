import {
  formOrJsonBody as body,
  instantSchema as instant,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const TAGS = ['administration']
const FORBIDDEN = problem('The caller is not an administrator (the configured role or capability).')
const NOT_FOUND = problem('No such account, or no such key or grant of it (`administration.not_found`).')
const STEP_UP = problem('No fresh step-up credential of purpose `administration` (`step-up.required`).')
const BAD_REQUEST = problem(
  'Malformed input or no reason (`administration.reason_required`); nothing changed.',
)
const UNAVAILABLE = problem('A store or the security log is unavailable; see Retry-After.')
const CONFLICT = problem(
  'Refused: the administrator acting on their own account, no address or password to reset, or not configured.',
)
const account = object(
  {
    accountId: string(),
    status: { type: 'string', enum: ['active', 'disabled'] },
    securityEpoch: { type: 'integer' },
    createdAt: instant,
  },
  ['accountId', 'status', 'securityEpoch', 'createdAt'],
)
const reasonBody = body(
  object({ reason: string('Why (1-200 characters), kept in the audit entry.') }, ['reason']),
)
const changed = ok(
  'The account after the change (null once deleted) and the id of its audit entry.',
  object({ account: { oneOf: [account, { type: 'null' }] }, auditId: string() }, ['account', 'auditId']),
)

function change(summary: string): OperationDocumentation {
  return {
    tags: TAGS,
    summary,
    requestBody: reasonBody,
    responses: {
      '200': changed,
      '400': BAD_REQUEST,
      '401': STEP_UP,
      '403': FORBIDDEN,
      '404': NOT_FOUND,
      '409': CONFLICT,
      '503': UNAVAILABLE,
    },
  }
}

export const ADMINISTRATION_ROUTE_DOCS = {
  search: {
    tags: TAGS,
    summary: 'Search accounts by id, username, email or prefix',
    parameters: [
      { name: 'by', in: 'query', required: true, schema: { enum: ['id', 'username', 'email', 'prefix'] } },
      { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
    ],
    responses: {
      '200': ok(
        'The matches, in code-point order of what matched.',
        object({ hits: { type: 'array', items: { type: 'object' } } }, ['hits']),
      ),
      '400': BAD_REQUEST,
      '403': FORBIDDEN,
      '503': UNAVAILABLE,
    },
  },
  view: {
    tags: TAGS,
    summary: 'One account: methods, factors, sessions, API keys, grants, recent events',
    responses: {
      '200': ok('The account (never a hash, digest, key or session id).', { type: 'object' }),
      '400': BAD_REQUEST,
      '403': FORBIDDEN,
      '404': NOT_FOUND,
      '503': UNAVAILABLE,
    },
  },
  disable: change('Disable the account: every instance refuses its credentials, sign-in is refused'),
  enable: change('Enable the account again'),
  signOut: change('Sign the account out of every session and token family'),
  revokeApiKey: change('Revoke one API key of the account'),
  revokeGrant: change('Revoke one grant (a connected app) of the account'),
  passwordReset: change('Sign the account out and send it the password-reset mail'),
  delete: change('Delete the account and everything of it'),
} satisfies Record<string, OperationDocumentation>
