import { withBodyLimitResponses } from '../body/body-limit.js'
import {
  formOrJsonBody as body,
  jsonResponse as json,
  objectSchema as object,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

/** Shared pieces of the account email route documentation (the other flows' files use them too). */
export const EMAIL_DOCS = {
  problem,
  string,
  object,
  body,
  json,
  TAGS: ['account-email'],
  RATE_LIMITED: problem(
    'Too many requests for this address or client (`account_email.rate_limited`); see Retry-After.',
  ),
  UNAVAILABLE: problem(
    'A store is down (`account_email.unavailable`); nothing was changed; see Retry-After.',
  ),
  INVALID_CODE: problem(
    'A wrong, expired, used or unknown code (`account_email.invalid_code`: one answer for all), or malformed input (`account_email.invalid_input`, `email.invalid_address`).',
  ),
  FLOW: json(
    'Accepted: the same answer whether or not the address has an account. Check the mailbox.',
    object({ flow: string('The flow handle the next step (or a resend) sends back.') }, ['flow']),
  ),
} as const

const { TAGS, RATE_LIMITED, UNAVAILABLE, INVALID_CODE, FLOW } = EMAIL_DOCS
const NEW_PASSWORD = problem(
  'Malformed input, a password the rules refuse (`local.invalid_password`) or the screen refused as common or breached (`local.password_screened`, never echoed), or a wrong, expired or used code (`account_email.invalid_code`).',
)
const resetDone = json(
  'The password is reset: every session, refresh family, access token and step-up credential of the account has ended. `session` / `tokens` only when the settings sign in after a verified second factor.',
  {
    type: 'object',
    required: ['reset'],
    properties: {
      reset: { type: 'boolean', const: true },
      accountId: string(),
      csrfToken: string(),
      expiresAt: string(),
      tokens: { type: 'object' },
    },
  },
)

/** OpenAPI entries of sign-up, verification and password reset (`accountEmailRouteTable`). */
export const ACCOUNT_EMAIL_ROUTE_DOCS = withBodyLimitResponses({
  signUp: {
    summary: 'Signs up with an email address and a password; a verification code is mailed.',
    description:
      'A new address gets an account (address unverified) and a verification code; an address another account verified gets no account and a "you already have an account" message instead. Both answer 202 with the same body after the same work. The account gets a generated username: the person signs in with the verified address.',
    tags: TAGS,
    requestBody: body(
      object(
        {
          email: string(),
          password: string(),
          inviteCode: string('Required under `invite-only` registration.'),
        },
        ['email', 'password'],
      ),
    ),
    responses: {
      '202': FLOW,
      '400': NEW_PASSWORD,
      '403': problem('Sign-up is closed (`account_email.sign_up_closed`).'),
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  verify: {
    summary: 'Verifies an address with the code it was sent (`flow` from the link or the sign-up answer).',
    tags: TAGS,
    requestBody: body(object({ flow: string(), code: string() }, ['flow', 'code'])),
    responses: {
      '200': json(
        'The address is verified.',
        object({ verified: { type: 'boolean', const: true } }, ['verified']),
      ),
      '400': INVALID_CODE,
      '409': problem('Another account verified this address first (`account_email.address_taken`).'),
      '503': UNAVAILABLE,
    },
  },
  resend: {
    summary: 'Sends a new verification code for a flow; the previous code stops working.',
    tags: TAGS,
    requestBody: body(object({ flow: string() }, ['flow'])),
    responses: { '202': FLOW, '400': INVALID_CODE, '429': RATE_LIMITED, '503': UNAVAILABLE },
  },
  forgot: {
    summary: 'Asks for a password reset code for an address.',
    description:
      'A known address gets a code and a link to the reset page (valid one hour); an unknown one a message saying someone tried (or nothing, by configuration). The answer is the same.',
    tags: TAGS,
    requestBody: body(object({ email: string() }, ['email'])),
    responses: {
      '202': FLOW,
      '400': problem('Malformed input (`account_email.invalid_input`, `email.invalid_address`).'),
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  reset: {
    summary:
      'Resets the password with the mailed code; a TOTP account must present its code next, a passkey account an assertion of its passkey.',
    tags: TAGS,
    requestBody: body(
      object({ flow: string(), code: string(), password: string('The new password.') }, [
        'flow',
        'code',
        'password',
      ]),
    ),
    responses: {
      '200': resetDone,
      '202': json(
        'The code was right and the account has a second factor; nothing changed yet. TOTP: send its code with `resetToken` and `pendingToken` to `password/reset/second-factor`. A passkey: pass `options` to `navigator.credentials.get()` and send the assertion with `resetToken` to `password/reset/passkey` (the answer sets the passkey ceremony cookie).',
        {
          oneOf: [
            object(
              {
                secondFactorRequired: { type: 'boolean', const: true },
                pendingToken: string(),
                resetToken: string(),
                methods: { type: 'array', items: string() },
                expiresAt: string(),
              },
              ['secondFactorRequired', 'pendingToken', 'resetToken', 'methods', 'expiresAt'],
            ),
            object(
              {
                passkeyRequired: { type: 'boolean', const: true },
                resetToken: string(),
                options: { type: 'object', description: 'PublicKeyCredentialRequestOptionsJSON' },
                expiresAt: string(),
              },
              ['passkeyRequired', 'resetToken', 'options', 'expiresAt'],
            ),
          ],
        },
      ),
      '400': NEW_PASSWORD,
      '403': problem(
        'The account has a passkey and the application asks no assertion (`account_email.second_factor_required`), or CSRF refused.',
      ),
      '503': UNAVAILABLE,
    },
  },
  resetSecondFactor: {
    summary: "The second step of a reset of a TOTP account: the authenticator's code (or a recovery code).",
    tags: TAGS,
    requestBody: body(
      object({ resetToken: string(), pendingToken: string(), code: string(), recoveryCode: string() }, [
        'resetToken',
        'pendingToken',
      ]),
    ),
    responses: {
      '200': resetDone,
      '400': problem('The reset is not pending (`account_email.reset_pending_invalid`) or malformed input.'),
      '401': problem(
        'A wrong TOTP or recovery code (`totp.invalid_code`, `totp.invalid_recovery_code`, `totp.pending_invalid`).',
      ),
      '429': problem('Too many second-factor attempts (`totp.rate_limited`); see Retry-After.'),
      '503': UNAVAILABLE,
    },
  },
  resetPasskey: {
    summary:
      'The second step of a reset of a passkey account: the assertion answering the challenge the reset started.',
    tags: TAGS,
    requestBody: body(
      object(
        { resetToken: string(), response: { type: 'object', description: 'AuthenticationResponseJSON' } },
        ['resetToken', 'response'],
      ),
    ),
    responses: {
      '200': resetDone,
      '400': problem(
        'The reset is not pending (`account_email.reset_pending_invalid`), the challenge is unknown, spent or of another browser (`passkey.challenge_invalid`), or malformed input.',
      ),
      '401': problem('The assertion does not verify with a passkey of the account (`passkey.*`).'),
      '403': problem('CSRF refused.'),
      '503': UNAVAILABLE,
    },
  },
} as const satisfies Record<string, OperationDocumentation>)
