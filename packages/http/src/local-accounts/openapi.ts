import { withBodyLimitResponses } from '../body/body-limit.js'
import {
  formOrJsonBody as body,
  type Json,
  objectSchema as object,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const ok = (description: string, schema?: Json): Json =>
  schema === undefined ? { description } : { description, content: { 'application/json': { schema } } }

const BAD_REQUEST = problem('Malformed or invalid input (nothing was written).')
const NEW_PASSWORD_REFUSED = problem(
  'Malformed or invalid input, or a new password the screen refused as common, breached or made of the account name (`local.password_screened`, never echoed); nothing was written.',
)
const SCREEN_UNAVAILABLE =
  'Password hashing is at capacity, a store is down, or the password screen could not decide (`local.password_screen_unavailable`); see Retry-After.'
const RATE_LIMITED = problem('Too many attempts for this account or client address; see Retry-After.')
const UNAVAILABLE = problem('Password hashing is at capacity or a store is down; see Retry-After.')
const CSRF = problem('Cross-site request refused (`local.csrf_refused`).')

const credentials = object({ username: string(), password: string() }, ['username', 'password'])
const tokenPair = object(
  {
    access_token: string('A short-lived at+jwt access token.'),
    refresh_token: string('An opaque, single-use refresh token.'),
    token_type: { type: 'string', enum: ['Bearer'] },
    expires_in: { type: 'integer', minimum: 0 },
  },
  ['access_token', 'refresh_token', 'token_type', 'expires_in'],
)
const sessionSignIn = object(
  {
    accountId: string(),
    csrfToken: string('Send it in x-csrf-token when the client sends neither Sec-Fetch-Site nor Origin.'),
    expiresAt: { type: 'string', format: 'date-time' },
  },
  ['accountId', 'csrfToken', 'expiresAt'],
)

const TAGS = ['local-accounts']

const secondFactorRequired = ok(
  'The password is right and the account has a second factor: no session or tokens yet. Send the pending token with a code to the second-factor route.',
  object(
    {
      secondFactorRequired: { type: 'boolean', enum: [true] },
      pendingToken: string('One-use, short-lived; only for the second-factor route.'),
      methods: { type: 'array', items: { type: 'string', enum: ['totp', 'recovery_code'] } },
      expiresAt: { type: 'string', format: 'date-time' },
    },
    ['secondFactorRequired', 'pendingToken', 'methods', 'expiresAt'],
  ),
)
const secondStep = body(
  object({ pendingToken: string(), code: string('Six digits.'), recoveryCode: string() }, ['pendingToken']),
)
const SECOND_STEP_REFUSED = problem(
  'Wrong or used code (`totp.invalid_code`, `totp.invalid_recovery_code`), or an unknown, expired or spent pending token (`totp.pending_invalid`).',
)

export const LOCAL_ROUTE_DOCS = withBodyLimitResponses({
  register: {
    tags: TAGS,
    summary: 'Create a local account (open or invite-only registration)',
    requestBody: body(
      object({ username: string(), password: string(), inviteCode: string() }, ['username', 'password']),
    ),
    responses: {
      '201': ok('Created.', object({ accountId: string(), username: string() }, ['accountId', 'username'])),
      '400': NEW_PASSWORD_REFUSED,
      '403': problem('Registration is closed, or the invite code is not valid.'),
      '409': problem('The username is taken.'),
      '429': RATE_LIMITED,
      '503': problem(SCREEN_UNAVAILABLE),
    },
  },
  login: {
    tags: TAGS,
    summary: 'Sign in with a username and password; sets the session cookie',
    requestBody: body(credentials),
    responses: {
      '200': ok('Signed in; the session cookie is set.', sessionSignIn),
      '202': secondFactorRequired,
      '400': BAD_REQUEST,
      '401': problem('Unknown username or wrong password (one answer for both).'),
      '403': CSRF,
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  token: {
    tags: TAGS,
    summary: 'Sign in with a username and password; returns a token pair',
    requestBody: body(credentials),
    responses: {
      '200': ok('A token pair.', tokenPair),
      '202': secondFactorRequired,
      '400': BAD_REQUEST,
      '401': problem('Unknown username or wrong password (one answer for both).'),
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  loginSecondFactor: {
    tags: TAGS,
    summary: 'Finish a password sign-in with a TOTP or recovery code; sets the session cookie',
    requestBody: secondStep,
    responses: {
      '200': ok('Signed in; the session cookie is set.', sessionSignIn),
      '400': BAD_REQUEST,
      '401': SECOND_STEP_REFUSED,
      '403': CSRF,
      '429': problem('Too many second-factor attempts for this account; see Retry-After.'),
      '503': UNAVAILABLE,
    },
  },
  tokenSecondFactor: {
    tags: TAGS,
    summary: 'Finish a password sign-in with a TOTP or recovery code; returns a token pair',
    requestBody: secondStep,
    responses: {
      '200': ok('A token pair.', tokenPair),
      '400': BAD_REQUEST,
      '401': SECOND_STEP_REFUSED,
      '429': problem('Too many second-factor attempts for this account; see Retry-After.'),
      '503': UNAVAILABLE,
    },
  },
  refresh: {
    tags: TAGS,
    summary: 'Rotate a refresh token into a new token pair',
    requestBody: body(
      object({ refresh_token: string(), grant_type: { type: 'string', enum: ['refresh_token'] } }, [
        'refresh_token',
      ]),
    ),
    responses: {
      '200': ok('A new token pair; the presented refresh token is used up.', tokenPair),
      '400': BAD_REQUEST,
      '401': problem('Unknown, expired, revoked or reused refresh token (a reuse revokes the family).'),
      '503': UNAVAILABLE,
    },
  },
  revoke: {
    tags: TAGS,
    summary: 'Revoke a refresh token and its family (RFC 7009)',
    requestBody: body(object({ token: string(), token_type_hint: string() }, ['token'])),
    responses: { '200': ok('Revoked, or the token was unknown.'), '400': BAD_REQUEST, '503': UNAVAILABLE },
  },
  logout: {
    tags: TAGS,
    summary: "Sign out this session or token family, or (`all`) every one of the account's",
    requestBody: body(object({ all: { type: 'boolean' } }, []), false),
    responses: { '204': { description: 'Signed out.' }, '400': BAD_REQUEST, '403': CSRF },
  },
  sessions: {
    tags: TAGS,
    summary: "List the account's live sessions",
    responses: {
      '200': ok(
        'The sessions, oldest first.',
        object({ sessions: { type: 'array', items: { type: 'object' } } }, ['sessions']),
      ),
    },
  },
  revokeSession: {
    tags: TAGS,
    summary: "Revoke one of the account's sessions by its id",
    responses: { '204': { description: 'Revoked.' }, '403': CSRF, '404': problem('No such session.') },
  },
  passwordChange: {
    tags: TAGS,
    summary: 'Change the password: every session, refresh family and access token of the account ends',
    requestBody: body(
      object({ currentPassword: string(), newPassword: string() }, ['currentPassword', 'newPassword']),
    ),
    responses: {
      '200': ok('Changed; a fresh session cookie and/or token pair for the caller.', { type: 'object' }),
      '400': NEW_PASSWORD_REFUSED,
      '403': CSRF,
      '409': problem('The password was changed concurrently.'),
      '429': RATE_LIMITED,
      '503': problem(SCREEN_UNAVAILABLE),
    },
  },
  csrf: {
    tags: TAGS,
    summary: 'The synchronizer token for clients that send neither Sec-Fetch-Site nor Origin',
    responses: {
      '200': ok(
        'The token (and a pre-session cookie when there is no session).',
        object({ csrfToken: string() }, ['csrfToken']),
      ),
    },
  },
  jwks: {
    tags: TAGS,
    summary: 'The public keys of the local access tokens (JWKS)',
    responses: {
      '200': ok(
        'RFC 7517 JWK set.',
        object({ keys: { type: 'array', items: { type: 'object' } } }, ['keys']),
      ),
    },
  },
} satisfies Record<string, OperationDocumentation>)
