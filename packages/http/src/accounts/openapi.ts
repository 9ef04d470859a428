import {
  formOrJsonBody as body,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const instant = { type: 'string', format: 'date-time' }

const TAGS = ['accounts']
const STEP_UP = problem('No valid one-use step-up credential of the purpose (`step-up.required`).')
const UNAVAILABLE = problem('A store or password hashing is unavailable; see Retry-After.')
const BAD_REQUEST = problem('Malformed input (nothing was written).')
const method = {
  type: 'object',
  required: ['kind'],
  properties: {
    kind: { type: 'string', enum: ['password', 'identity', 'passkey'] },
    username: string('The password sign-in name (kind password).'),
    provider: string('The provider registration (kind identity).'),
    providerAccountId: string('The link id: `links/{providerAccountId}/unlink` removes it.'),
    issuer: string(),
    subject: string(),
    createdAt: instant,
    passwordChangedAt: instant,
    linkedAt: instant,
    credentialId: string('The WebAuthn credential id, base64url (kind passkey).'),
    name: string('The name its owner gave the passkey (kind passkey).'),
    lastUsedAt: { ...instant, type: ['string', 'null'] },
  },
}

export const ACCOUNT_ROUTE_DOCS = {
  account: {
    tags: TAGS,
    summary: 'The signed-in account and every way to sign in to it',
    responses: {
      '200': ok(
        'The account: status, creation time and sign-in methods (never a password hash).',
        object(
          {
            accountId: string(),
            status: { type: 'string', enum: ['active', 'disabled'] },
            createdAt: instant,
            methods: { type: 'array', items: method },
          },
          ['accountId', 'status', 'createdAt', 'methods'],
        ),
      ),
    },
  },
  stepUp: {
    tags: TAGS,
    summary: 'Re-enter the password for a one-use step-up credential of `purpose`',
    requestBody: body(
      object({ password: string(), return_to: string('A local path (browsers).') }, ['password']),
    ),
    responses: {
      '200': ok(
        'The credential, shown this once (send it in the step-up header).',
        object({ purpose: string(), stepUpToken: string(), expiresAt: instant }, [
          'purpose',
          'stepUpToken',
          'expiresAt',
        ]),
      ),
      '303': {
        description: "Browsers: the credential is in the purpose's step-up cookie; back to return_to.",
      },
      '400': BAD_REQUEST,
      '401': problem('Wrong password (`local.invalid_credentials`).'),
      '409': problem(
        'The account has no password (`account.password_missing`): reauthenticate at a provider.',
      ),
      '429': problem('Too many attempts for this account or client address; see Retry-After.'),
      '503': UNAVAILABLE,
    },
  },
  addPassword: {
    tags: TAGS,
    summary:
      'Add a password to an account that signs in with provider identities only (step-up `password-add`)',
    requestBody: body(object({ username: string(), password: string() }, ['username', 'password'])),
    responses: {
      '201': ok('Added.', method),
      '400': BAD_REQUEST,
      '401': STEP_UP,
      '409': problem('The account has a password, or the username is taken.'),
      '503': UNAVAILABLE,
    },
  },
  removePassword: {
    tags: TAGS,
    summary: 'Remove the password (step-up `password-remove`); never the last way to sign in',
    responses: {
      '200': ok(
        'Removed: every other session and token family ended; a fresh session cookie and/or token pair.',
        { type: 'object' },
      ),
      '401': STEP_UP,
      '409': problem('The last way to sign in (`account.final_method`), or no password.'),
      '503': UNAVAILABLE,
    },
  },
  deleteAccount: {
    tags: TAGS,
    summary: 'Delete the account and everything of it (step-up `delete-account`)',
    responses: {
      '204': { description: 'Deleted; the session cookie is cleared.' },
      '303': { description: 'Browsers: deleted, then to `afterDeletion`.' },
      '401': STEP_UP,
      '503': UNAVAILABLE,
    },
  },
} satisfies Record<string, OperationDocumentation>
