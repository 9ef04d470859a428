import { withBodyLimitResponses } from '../body/body-limit.js'
import { jsonResponse as json, problemResponse as problem } from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const TAGS = ['totp']
const UNAUTHENTICATED = problem('Not signed in (`authentication.required`).')
const UNAVAILABLE = problem(
  'A store is unavailable (`totp.unavailable`, `step-up.unavailable`); see Retry-After.',
)
const stepUpRequired = (purpose: string) =>
  problem(`Not signed in, or no valid \`${purpose}\` step-up credential (\`step-up.required\`).`)
const recoveryCodes = json('Ten recovery codes, shown this once (only digests are kept).', {
  type: 'object',
  additionalProperties: false,
  required: ['recoveryCodes'],
  properties: {
    recoveryCodes: {
      type: 'array',
      minItems: 10,
      maxItems: 10,
      items: { type: 'string', pattern: '^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$' },
    },
  },
})

/** OpenAPI entries of the TOTP routes (`totpRouteTable`). Examples hold no secret or code. */
export const TOTP_ROUTE_DOCS = withBodyLimitResponses({
  status: {
    summary: "The signed-in account's second-factor state.",
    tags: TAGS,
    responses: {
      '200': json(
        'Whether TOTP is on, an enrollment waits for its first code, and how many recovery codes are left.',
        {
          type: 'object',
          additionalProperties: false,
          required: ['enabled', 'pending', 'recoveryCodes'],
          properties: {
            enabled: { type: 'boolean' },
            pending: { type: 'boolean' },
            recoveryCodes: { type: 'integer', minimum: 0 },
          },
        },
      ),
      '401': UNAUTHENTICATED,
      '503': UNAVAILABLE,
    },
  },
  enroll: {
    summary: 'Starts (or restarts) a TOTP enrollment; needs a `totp-enroll` step-up.',
    description:
      'A new secret is stored as pending; the answer is what the authenticator app needs, shown once: the `otpauth://totp/...` URI (render it as a QR code) and the base32 secret. TOTP is on only after `POST totp/confirm`.',
    tags: TAGS,
    responses: {
      '200': json('The enrollment (both members contain the secret: never log them).', {
        type: 'object',
        additionalProperties: false,
        required: ['secret', 'uri'],
        properties: {
          secret: { type: 'string', description: 'Base32, for typing into an app that cannot scan.' },
          uri: { type: 'string', description: 'The `otpauth://totp/<issuer>:<label>?secret=...` URI.' },
        },
      }),
      '401': stepUpRequired('totp-enroll'),
      '409': problem('TOTP is already enabled (`totp.already_enabled`): disable it first.'),
      '503': UNAVAILABLE,
    },
  },
  confirm: {
    summary: 'Confirms the pending enrollment with a first code: TOTP is on, with ten recovery codes.',
    tags: TAGS,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['code'],
            properties: { code: { type: 'string', description: 'Six digits from the app.' } },
          },
        },
      },
    },
    responses: {
      '200': recoveryCodes,
      '400': problem('Malformed input (`account.invalid_request`, `totp.invalid_input`).'),
      '401': problem('Not signed in, or a wrong, expired or used code (`totp.invalid_code`).'),
      '409': problem(
        'No pending enrollment (`totp.not_enrolled`), or another one won (`totp.enrollment_changed`).',
      ),
      '429': problem('Too many attempts for this account (`totp.rate_limited`); see Retry-After.'),
      '503': UNAVAILABLE,
    },
  },
  recoveryCodes: {
    summary: 'Replaces the recovery codes; needs a `totp-recovery-codes` step-up.',
    description: 'The previous set stops working at once.',
    tags: TAGS,
    responses: {
      '200': recoveryCodes,
      '401': stepUpRequired('totp-recovery-codes'),
      '409': problem('TOTP is not enabled (`totp.not_enrolled`).'),
      '503': UNAVAILABLE,
    },
  },
  disable: {
    summary: 'Turns TOTP off (with its recovery codes); needs a `totp-disable` step-up.',
    tags: TAGS,
    responses: {
      '204': { description: 'TOTP is off; password sign-ins no longer ask for a code.' },
      '401': stepUpRequired('totp-disable'),
      '409': problem('TOTP is not enabled (`totp.not_enrolled`).'),
      '503': UNAVAILABLE,
    },
  },
} as const satisfies Record<string, OperationDocumentation>)
