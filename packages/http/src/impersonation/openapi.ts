import {
  formOrJsonBody as body,
  instantSchema as instant,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const TAGS = ['impersonation']
const UNAVAILABLE = problem(
  'The authorization resolver, a store or the protector is unavailable; see Retry-After.',
)

export const IMPERSONATION_ROUTE_DOCS = {
  start: {
    tags: TAGS,
    summary: 'Start acting as another account (administrators, with a fresh step-up and a reason)',
    description:
      'Spends the one-use `impersonation-start` step-up credential of the administrator. The answer sets the impersonation session cookie and the impersonation cookie; the administrator session comes back when the impersonation ends.',
    requestBody: body(
      object(
        {
          accountId: string('The account to act as.'),
          reason: string('Why, in the administrator’s words (kept in the security log; 1-500 characters).'),
          return_to: string('A same-origin path a browser form goes to afterwards (303).'),
        },
        ['accountId', 'reason'],
      ),
    ),
    responses: {
      '201': ok(
        'The impersonation started.',
        object(
          {
            impersonationId: string(),
            accountId: string(),
            expiresAt: instant,
            csrfToken: string('The synchronizer token of the impersonation session.'),
          },
          ['impersonationId', 'accountId', 'expiresAt', 'csrfToken'],
        ),
      ),
      '303': { description: 'A browser form: to `return_to`.' },
      '400': problem('Malformed input or a blank reason (`impersonation.invalid_input`).'),
      '401': problem('No valid one-use step-up credential (`step-up.required`).'),
      '403': problem(
        'Not allowed (`authorization.denied`), the target is an administrator (`impersonation.target_is_administrator`), or the caller is impersonating already (`impersonation.nested`).',
      ),
      '404': problem('No active account with this id (`impersonation.target_not_found`).'),
      '503': UNAVAILABLE,
    },
  },
  end: {
    tags: TAGS,
    summary: 'End the impersonation this request is; the administrator session comes back',
    requestBody: body(
      object({ return_to: string('A same-origin path a browser form goes to (303).') }, []),
      false,
    ),
    responses: {
      '200': ok(
        'The impersonation ended.',
        object(
          {
            impersonationId: string(),
            csrfToken: string('The synchronizer token of the administrator session.'),
          },
          ['impersonationId', 'csrfToken'],
        ),
      ),
      '303': { description: 'A browser form: to `return_to`.' },
      '409': problem('The request is not an impersonation (`impersonation.not_impersonating`).'),
      '503': UNAVAILABLE,
    },
  },
  current: {
    tags: TAGS,
    summary: 'Whether this request is an impersonation, and whose',
    responses: {
      '200': ok(
        'The impersonation, if any.',
        object(
          {
            impersonating: { type: 'boolean' },
            accountId: string(),
            administratorId: string(),
            impersonationId: string(),
          },
          ['impersonating', 'accountId'],
        ),
      ),
    },
  },
} satisfies Record<string, OperationDocumentation>
