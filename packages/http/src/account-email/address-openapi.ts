import { withBodyLimitResponses } from '../body/body-limit.js'
import { EMAIL_DOCS } from './openapi.js'

const { problem, string, object, body, json, TAGS, RATE_LIMITED, UNAVAILABLE } = EMAIL_DOCS
const EMAIL = body(object({ email: string() }, ['email']))
const ADDRESS = object(
  {
    address: string(),
    verified: { type: 'boolean' },
    primary: { type: 'boolean' },
    createdAt: string(),
    verifiedAt: { type: ['string', 'null'] },
  },
  ['address', 'verified', 'primary', 'createdAt', 'verifiedAt'],
)
const RENEWED = {
  address: string(),
  accountId: string(),
  csrfToken: string(),
  expiresAt: string(),
  tokens: { type: 'object' },
}
const UNAUTHENTICATED = problem('Not signed in (`authentication.required`).')
const STEP_UP = problem(
  'No step-up credential of purpose `email-change` (`step-up.required`), or not signed in (`authentication.required`).',
)
const UNKNOWN = problem(
  'Malformed input (`account_email.invalid_input`, `email.invalid_address`) or an address the account does not hold (`account_email.address_not_found`).',
)

/** OpenAPI entries of the signed-in account's address routes. */
export const ADDRESS_ROUTE_DOCS = withBodyLimitResponses({
  list: {
    summary: "The signed-in account's email addresses, primary first.",
    tags: TAGS,
    responses: {
      '200': json('The addresses.', object({ addresses: { type: 'array', items: ADDRESS } }, ['addresses'])),
      '401': UNAUTHENTICATED,
      '503': UNAVAILABLE,
    },
  },
  add: {
    summary: 'Adds an unverified address and mails it a verification code; needs an `email-change` step-up.',
    description:
      'A verified address can receive password resets, so adding one spends a step-up credential. The verified primary address is told (`address-added` notification, unless turned off) in the transaction that adds it; the code and its message are written in one transaction. Verify with `POST email/verify` and the mailed code.',
    tags: TAGS,
    requestBody: EMAIL,
    responses: {
      '202': json(
        'Added, unverified: check the mailbox of the address.',
        object({ address: string(), verified: { type: 'boolean', const: false }, flow: string() }, [
          'address',
          'verified',
          'flow',
        ]),
      ),
      '400': problem('Malformed input (`account_email.invalid_input`, `email.invalid_address`).'),
      '401': STEP_UP,
      '409': problem(
        'The account holds the address already (`account_email.address_exists`) or the most addresses allowed (`account_email.too_many_addresses`), or another account verified it (`account_email.address_taken`).',
      ),
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  resend: {
    summary: 'Mails a new verification code to an unverified address of the account.',
    description: 'Only the newest verification code of an account works.',
    tags: TAGS,
    requestBody: EMAIL,
    responses: {
      '202': json('Sent.', object({ flow: string() }, ['flow'])),
      '400': UNKNOWN,
      '401': UNAUTHENTICATED,
      '409': problem('The address is verified already (`account_email.address_verified`).'),
      '429': RATE_LIMITED,
      '503': UNAVAILABLE,
    },
  },
  primary: {
    summary: 'Makes a verified address the primary one; needs an `email-change` step-up.',
    description:
      'The security epoch moves: every other session ends, the caller gets a fresh one. The old and the new primary are told (`address-changed`).',
    tags: TAGS,
    requestBody: EMAIL,
    responses: {
      '200': json('The address is the primary now.', {
        type: 'object',
        required: ['primary', 'address'],
        properties: { primary: { type: 'boolean', const: true }, ...RENEWED },
      }),
      '400': problem(
        'Malformed input, an address the account does not hold (`account_email.address_not_found`), or the primary itself (`account_email.same_address`).',
      ),
      '401': STEP_UP,
      '409': problem('Only a verified address can be primary (`account_email.address_unverified`).'),
      '503': UNAVAILABLE,
    },
  },
  remove: {
    summary: 'Removes an address of the account; needs an `email-change` step-up.',
    description:
      'Never the primary while others remain, never the last way to sign in. Removing a verified address moves the security epoch (every other session ends, the caller gets a fresh one) and ends the reset and sign-in codes mailed so far. The primary and the removed address, when verified, are told (`address-removed`).',
    tags: TAGS,
    requestBody: EMAIL,
    responses: {
      '200': json('Removed.', {
        type: 'object',
        required: ['removed', 'address'],
        properties: { removed: { type: 'boolean', const: true }, ...RENEWED },
      }),
      '400': UNKNOWN,
      '401': STEP_UP,
      '409': problem(
        'The primary address while others remain (`account_email.primary_address`), or the last way to sign in (`account_email.last_sign_in_address`).',
      ),
      '503': UNAVAILABLE,
    },
  },
})
