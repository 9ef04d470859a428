import type { OperationDocumentation } from '@portcullis/http/routing'

type Json = Readonly<Record<string, unknown>>

const problem = (description: string): Json => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})
const json = (description: string, schema: Json): Json => ({
  description,
  content: { 'application/json': { schema } },
})
const instant = { type: 'string', format: 'date-time' }
const TAGS = ['passkeys']
const UNAUTHENTICATED = problem('Not signed in (`authentication.required`).')
const BAD_REQUEST = problem(
  'Malformed input (`passkey.invalid_input`, `request.invalid`); nothing was written.',
)
const UNAVAILABLE = problem(
  'A store is unavailable (`passkey.unavailable`, `step-up.unavailable`); see Retry-After.',
)
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

/** OpenAPI entries of the passkey routes (`createPasskeyRoutes`). */
export const PASSKEY_ROUTE_DOCS = {
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
  rename: {
    summary: "Renames one of the account's passkeys.",
    tags: TAGS,
    parameters: [credentialId],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', maxLength: 64 } },
          },
        },
      },
    },
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
      '200': json('PublicKeyCredentialRequestOptionsJSON.', { type: 'object' }),
      '400': BAD_REQUEST,
      '401': UNAUTHENTICATED,
      '503': UNAVAILABLE,
    },
  },
  stepUp: {
    summary: 'Finishes a passkey step-up: a one-use step-up credential of the purpose.',
    description:
      'The body is the `PublicKeyCredential` JSON of the assertion (user verification required). Every `requiresStepUp(purpose)` guard accepts the credential once.',
    tags: TAGS,
    parameters: [purpose],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    responses: {
      '200': json('The credential (also in the step-up cookie when cookies are configured).', {
        type: 'object',
        required: ['purpose', 'stepUpToken', 'expiresAt'],
        properties: { purpose: { type: 'string' }, stepUpToken: { type: 'string' }, expiresAt: instant },
      }),
      '400': BAD_REQUEST,
      '401': problem(
        'Not signed in, or the assertion was refused (`passkey.challenge_invalid`, `passkey.verification_failed`, `passkey.credential_suspended`).',
      ),
      '503': UNAVAILABLE,
    },
  },
} as const satisfies Record<string, OperationDocumentation>
