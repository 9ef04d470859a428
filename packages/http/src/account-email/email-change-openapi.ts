import { withBodyLimitResponses } from '../body/body-limit.js'
import { EMAIL_DOCS } from './openapi.js'

const { problem, string, object, body, json, TAGS, RATE_LIMITED, UNAVAILABLE, INVALID_CODE } = EMAIL_DOCS
const FLOW_AND_CODE = body(object({ flow: string(), code: string() }, ['flow', 'code']))
const PENDING = json(
  'Accepted: a flow handle for the next step, the same answer for every address.',
  object({ flow: string(), expiresAt: string() }, ['flow', 'expiresAt']),
)
const SIGNED_IN = {
  type: 'object',
  properties: {
    accountId: string(),
    csrfToken: string(),
    expiresAt: string(),
    tokens: { type: 'object' },
  },
}
const UNAUTHENTICATED = problem('Not signed in (`authentication.required`).')
const KINDS = {
  type: 'array',
  items: {
    type: 'string',
    enum: [
      'password-changed',
      'password-reset',
      'address-added',
      'address-changed',
      'address-removed',
      'factor-added',
      'factor-removed',
      'identity-linked',
      'identity-unlinked',
      'mcp-client-connected',
    ],
  },
}
const SETTINGS = json(
  'Every kind of security notification and the kinds the account turned off.',
  object({ kinds: KINDS, optOuts: KINDS }, ['kinds', 'optOuts']),
)

/** OpenAPI entries of email change, sign-in by email code and notification settings. */
export const EMAIL_CHANGE_ROUTE_DOCS = withBodyLimitResponses({
  request: {
    summary: 'Asks to change the primary address; needs an `email-change` step-up credential.',
    description:
      'Nothing about the account changes yet: the new address gets a code (valid 60 minutes), the old one a notice with an undo link (valid 7 days).',
    tags: TAGS,
    requestBody: body(object({ email: string() }, ['email'])),
    responses: {
      '202': PENDING,
      '400': problem(
        'Malformed input (`account_email.invalid_input`, `email.invalid_address`) or the primary address itself (`account_email.same_address`).',
      ),
      '401': problem(
        'No step-up credential of purpose `email-change` (`step-up.required`), or not signed in.',
      ),
      '503': UNAVAILABLE,
    },
  },
  confirm: {
    summary: 'Confirms the new address with its code: it becomes the verified primary address.',
    description:
      'Only the signed-in account that asked may confirm (a code presented by another account is spent and refused). The security epoch moves: every other session ends, the caller gets a fresh one.',
    tags: TAGS,
    requestBody: FLOW_AND_CODE,
    responses: {
      '200': json('The address changed.', {
        ...SIGNED_IN,
        properties: { ...SIGNED_IN.properties, address: string() },
      }),
      '400': INVALID_CODE,
      '401': UNAUTHENTICATED,
      '409': problem(
        'Another account verified the address first (`account_email.address_taken`), or the account holds the most addresses allowed (`account_email.too_many_addresses`).',
      ),
      '503': UNAVAILABLE,
    },
  },
  undo: {
    summary: 'Undoes an email change with the code of the link sent to the old address (no session needed).',
    description:
      'The old address is the verified primary again, the new one is removed, a pending change is cancelled, and the security epoch moves (every session ends). Works once.',
    tags: TAGS,
    requestBody: FLOW_AND_CODE,
    responses: {
      '200': json(
        'Undone.',
        object({ undone: { type: 'boolean', const: true }, address: string() }, ['undone', 'address']),
      ),
      '400': INVALID_CODE,
      '409': problem('Another account verified the old address meanwhile (`account_email.address_taken`).'),
      '503': UNAVAILABLE,
    },
  },
  signInCode: {
    summary: 'Asks for a sign-in code by email (when sign-in by email code is turned on).',
    description:
      'A verified address of an active account gets a code valid 10 minutes; every address gets the same answer.',
    tags: TAGS,
    requestBody: body(object({ email: string() }, ['email'])),
    responses: {
      '202': PENDING,
      '400': problem('Malformed input (`account_email.invalid_input`, `email.invalid_address`).'),
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  signInCodeVerify: {
    summary: 'Signs in with a mailed code; an account with a second factor must present it next.',
    description:
      'The sign-in satisfies no step-up: email is not an authenticator at AAL2 (NIST SP 800-63B-4).',
    tags: TAGS,
    requestBody: FLOW_AND_CODE,
    responses: {
      '200': json('Signed in: a session (its cookie is set) or a token pair.', SIGNED_IN),
      '202': json(
        'The second factor is next (`POST login/second-factor` or `token/second-factor` with `pendingToken`).',
        {
          type: 'object',
          properties: {
            secondFactorRequired: { type: 'boolean', const: true },
            pendingToken: string(),
            methods: { type: 'array', items: string() },
            expiresAt: string(),
          },
        },
      ),
      '400': INVALID_CODE,
      '403': problem('A refused CSRF check (`csrf.refused`).'),
      '503': UNAVAILABLE,
    },
  },
  notifications: {
    summary: 'The security notifications of the account and those it turned off.',
    tags: TAGS,
    responses: { '200': SETTINGS, '401': UNAUTHENTICATED, '503': UNAVAILABLE },
  },
  setNotifications: {
    summary: 'Turns kinds of security notifications off (the complete set; empty turns every kind on).',
    tags: TAGS,
    requestBody: body(object({ optOuts: KINDS }, [])),
    responses: {
      '200': SETTINGS,
      '400': problem('An unknown kind (`account_email.invalid_input`).'),
      '401': UNAUTHENTICATED,
      '503': UNAVAILABLE,
    },
  },
})
