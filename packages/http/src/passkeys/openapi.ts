import { withBodyLimitResponses } from '../body/body-limit.js'
import { type Json, jsonResponse as json, problemResponse as problem } from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const body = (schema: Json): Json => ({ required: true, content: { 'application/json': { schema } } })
const instant = { type: 'string', format: 'date-time' }
const TAGS = ['passkeys']
const UNAUTHENTICATED = problem('Not signed in (`authentication.required`).')
const BAD_REQUEST = problem(
  'Malformed input (`passkey.invalid_input`, `account.invalid_request`, `request.invalid`); nothing was written.',
)
const UNAVAILABLE = problem(
  'A store is unavailable (`passkey.unavailable`, `step-up.unavailable`); see Retry-After.',
)
const CSRF = problem('Cross-site request refused (`local.csrf_refused`).')
const ASSERTION_REFUSED = problem(
  'The assertion was refused (`passkey.challenge_invalid`, `passkey.verification_failed`, `passkey.unknown_credential`, `passkey.credential_suspended`).',
)
const DISABLED = problem('The account is disabled (`account.disabled`).')
const credentialId = {
  name: 'credentialId',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,1366}$' },
}
const purpose = { name: 'purpose', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } }
const passkey = {
  type: 'object',
  required: ['credentialId', 'name', 'createdAt', 'lastUsedAt', 'suspended'],
  properties: {
    credentialId: { type: 'string', description: 'The WebAuthn credential id, base64url.' },
    name: { type: 'string' },
    createdAt: instant,
    lastUsedAt: { ...instant, type: ['string', 'null'] },
    suspended: { type: 'boolean', description: 'Its counter went backwards: refused from then on.' },
    deviceType: { type: 'string', enum: ['singleDevice', 'multiDevice'] },
    backedUp: { type: 'boolean' },
  },
}
const assertionBody = body({
  type: 'object',
  additionalProperties: false,
  required: ['response'],
  properties: {
    response: { type: 'object', description: 'The `PublicKeyCredential` JSON of the assertion.' },
  },
})
const creationOptions = json(
  'PublicKeyCredentialCreationOptionsJSON; the HttpOnly `__Host-portcullis-passkey` binding cookie is set unless the browser has one.',
  { type: 'object', required: ['challenge'] },
)
const requestOptions = json(
  'PublicKeyCredentialRequestOptionsJSON; the HttpOnly `__Host-portcullis-passkey` binding cookie is set unless the browser has one.',
  { type: 'object', required: ['challenge'] },
)

/** OpenAPI entries of the passkey routes (`passkeyRouteTable`). */
export const PASSKEY_ROUTE_DOCS = withBodyLimitResponses({
  list: {
    summary: "The signed-in account's passkeys (never a public key).",
    tags: TAGS,
    responses: {
      '200': json('The passkeys, oldest first.', {
        type: 'object',
        required: ['passkeys'],
        properties: { passkeys: { type: 'array', items: passkey } },
      }),
      '401': UNAUTHENTICATED,
      '503': UNAVAILABLE,
    },
  },
  registerOptions: {
    summary: 'Begins registering a passkey: options for `navigator.credentials.create()`.',
    description:
      "Consumes a one-use `passkey-register` step-up credential (step-up header or cookie). The user name is the account's username, or its id when it has no password; the account's passkeys are excluded. The challenge is one-use, short-lived, bound to this browser and session.",
    tags: TAGS,
    responses: {
      '200': creationOptions,
      '401': problem(
        'Not signed in, or no valid `passkey-register` step-up credential (`step-up.required`).',
      ),
      '503': UNAVAILABLE,
    },
  },
  register: {
    summary: 'Finishes registering a passkey to the signed-in account.',
    tags: TAGS,
    requestBody: body({
      type: 'object',
      additionalProperties: false,
      required: ['response'],
      properties: {
        response: { type: 'object', description: 'The `PublicKeyCredential` JSON of the attestation.' },
        name: { type: 'string', maxLength: 64 },
      },
    }),
    responses: {
      '201': json('The new passkey.', {
        type: 'object',
        required: ['passkey'],
        properties: { passkey },
      }),
      '400': BAD_REQUEST,
      '401': problem(
        'Not signed in, or the attestation was refused (`passkey.challenge_invalid`, `passkey.verification_failed`).',
      ),
      '409': problem('The credential is already registered (`passkey.already_registered`).'),
      '503': UNAVAILABLE,
    },
  },
  signInOptions: {
    summary: 'Begins a passkey sign-in: options for `navigator.credentials.get()` (conditional UI too).',
    description:
      'Discoverable credentials: no credential is named (`allowCredentials` is empty). CSRF-checked like `POST /auth/login` where the profile has sessions.',
    tags: TAGS,
    responses: { '200': requestOptions, '403': CSRF, '503': UNAVAILABLE },
  },
  signIn: {
    summary: 'Signs in with a passkey; sets the session cookie.',
    description:
      'The answer is that of `POST /auth/login`. User verification is required, so no second factor is asked; the sign-in is recorded as `amr: ["hwk", "user"]`.',
    tags: TAGS,
    requestBody: assertionBody,
    responses: {
      '200': json('Signed in; the session cookie is set.', {
        type: 'object',
        required: ['accountId', 'csrfToken', 'expiresAt'],
        properties: { accountId: { type: 'string' }, csrfToken: { type: 'string' }, expiresAt: instant },
      }),
      '400': BAD_REQUEST,
      '401': ASSERTION_REFUSED,
      '403': problem('Cross-site request refused (`local.csrf_refused`), or the account is disabled.'),
      '503': UNAVAILABLE,
    },
  },
  token: {
    summary: 'Signs in with a passkey; returns a token pair.',
    description:
      'The answer is that of `POST /auth/token`; the access token carries `amr: ["hwk", "user"]`. No second factor is asked.',
    tags: TAGS,
    requestBody: assertionBody,
    responses: {
      '200': json('A token pair.', {
        type: 'object',
        required: ['access_token', 'refresh_token', 'token_type', 'expires_in'],
        properties: {
          access_token: { type: 'string' },
          refresh_token: { type: 'string' },
          token_type: { type: 'string', enum: ['Bearer'] },
          expires_in: { type: 'integer', minimum: 0 },
        },
      }),
      '400': BAD_REQUEST,
      '401': ASSERTION_REFUSED,
      '403': DISABLED,
      '503': UNAVAILABLE,
    },
  },
  rename: {
    summary: "Renames one of the account's passkeys.",
    tags: TAGS,
    parameters: [credentialId],
    requestBody: body({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', maxLength: 64 } },
    }),
    responses: {
      '204': { description: 'Renamed.' },
      '400': BAD_REQUEST,
      '401': UNAUTHENTICATED,
      '404': problem('The account has no such passkey (`passkey.not_found`).'),
      '503': UNAVAILABLE,
    },
  },
  remove: {
    summary:
      "Removes one of the account's passkeys; needs a `passkey-remove` step-up; never the last sign-in method.",
    tags: TAGS,
    parameters: [credentialId],
    responses: {
      '204': { description: 'Removed.' },
      '401': problem('Not signed in, or no valid `passkey-remove` step-up credential (`step-up.required`).'),
      '404': problem('The account has no such passkey (`passkey.not_found`).'),
      '409': problem("It is the account's last way to sign in (`account.final_method`)."),
      '503': UNAVAILABLE,
    },
  },
  stepUpOptions: {
    summary: 'Begins a passkey step-up for the purpose: options for `navigator.credentials.get()`.',
    description:
      "Lists only the account's usable passkeys; the challenge is one-use, short-lived, bound to this browser (an HttpOnly cookie), the session and the purpose.",
    tags: TAGS,
    parameters: [purpose],
    responses: {
      '200': requestOptions,
      '400': BAD_REQUEST,
      '401': UNAUTHENTICATED,
      '503': UNAVAILABLE,
    },
  },
  stepUp: {
    summary: 'Finishes a passkey step-up: a one-use step-up credential of the purpose.',
    description:
      'The body is `{ response }`, the `PublicKeyCredential` JSON of the assertion (user verification required). Every `requiresStepUp(purpose)` guard accepts the credential once.',
    tags: TAGS,
    parameters: [purpose],
    requestBody: assertionBody,
    responses: {
      '200': json('The credential (also in the step-up cookie when cookies are configured).', {
        type: 'object',
        required: ['purpose', 'stepUpToken', 'expiresAt'],
        properties: { purpose: { type: 'string' }, stepUpToken: { type: 'string' }, expiresAt: instant },
      }),
      '400': BAD_REQUEST,
      '401': problem('Not signed in, or the assertion was refused (`passkey.*`).'),
      '503': UNAVAILABLE,
    },
  },
} as const satisfies Record<string, OperationDocumentation>)
