import { withBodyLimitResponses } from '../body/body-limit.js'
import type { OperationDocumentation } from '../routing/route-options.js'

type Json = Record<string, unknown>

const TAGS = ['oauth']

const redirectOrJson = (description: string, json: Json): Record<string, Json> => ({
  '200': {
    description: `${description} (JSON, when the client sends \`Accept: application/json\`).`,
    content: { 'application/json': { schema: json } },
  },
  '303': {
    description: `${description} (browser redirect).`,
    headers: { Location: { schema: { type: 'string' } } },
  },
})

const BEGUN: Json = {
  type: 'object',
  required: ['operation', 'provider', 'redirectUrl', 'expiresAt'],
  properties: {
    operation: { type: 'string' },
    provider: { type: 'string' },
    redirectUrl: { type: 'string', description: 'Where to send the browser (the provider).' },
    expiresAt: { type: 'string', format: 'date-time' },
  },
}

const RETURN_TO = {
  return_to: { type: 'string', description: 'An allow-listed target for after the callback.' },
}

const formOrJson = (properties: Json, required: readonly string[] = []): Json => {
  const schema = { type: 'object', properties, ...(required.length === 0 ? {} : { required }) }
  return {
    required: required.length > 0,
    content: {
      'application/json': { schema },
      'application/x-www-form-urlencoded': { schema },
    },
  }
}

const problem = (description: string): Json => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

function providerParameter(providers: readonly string[]): Json {
  return { name: 'provider', in: 'path', required: true, schema: { type: 'string', enum: [...providers] } }
}

/** OpenAPI documentation of each OAuth route. */
export function oauthDocumentation(providers: readonly string[]) {
  const provider = providerParameter(providers)
  const doc = (fields: OperationDocumentation, notFound = true): OperationDocumentation => ({
    tags: TAGS,
    ...fields,
    parameters: [provider, ...(fields.parameters ?? [])],
    responses: {
      ...(fields.responses ?? {}),
      ...(notFound ? { '404': problem('Unknown provider (`oauth.not_found`).') } : {}),
    },
  })
  return withBodyLimitResponses({
    login: doc({
      summary: 'Begin sign-in with the provider',
      parameters: [{ name: 'return_to', in: 'query', required: false, schema: { type: 'string' } }],
      responses: redirectOrJson('The provider authorization URL; sets the browser-binding cookie', BEGUN),
    }),
    callback: doc({
      summary:
        'Provider redirect target: completes sign-in, link, scope upgrade, revalidation or reauthentication',
      description:
        "Answers 303 to the `return_to` recorded at the start, or the outcome as JSON. A reauthentication sets the purpose's `__Host-` step-up cookie for browsers, or returns `stepUpToken` to JSON clients.",
      responses: {
        ...redirectOrJson('The outcome', { type: 'object', required: ['operation', 'provider', 'returnTo'] }),
        '401': problem('Unknown, replayed, expired or foreign transaction, or a rejected callback.'),
        '403': problem('Unknown identity without provisioning, or a refused confirmation.'),
        '409': problem('The identity is linked to another account (`oauth.account.link_conflict`).'),
        '503': problem('The provider or a store is unavailable.'),
      },
    }),
    link: doc({
      summary: 'Link the provider to the signed-in account (step-up `oauth-link`)',
      requestBody: formOrJson(RETURN_TO),
      responses: redirectOrJson('The provider authorization URL', BEGUN),
    }),
    scopes: doc({
      summary: 'Ask the provider for more scopes (step-up `oauth-scope-upgrade`)',
      requestBody: formOrJson(
        {
          scopes: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
          ...RETURN_TO,
        },
        ['scopes'],
      ),
      responses: redirectOrJson('The provider authorization URL', BEGUN),
    }),
    unlink: doc({
      summary: 'Unlink a provider identity (step-up `oauth-unlink`)',
      responses: {
        '200': { description: 'Unlinked.', content: { 'application/json': { schema: { type: 'object' } } } },
        '409': problem("The link is the account's last way to sign in (`oauth.link.final_method`)."),
      },
    }),
    revoke: doc({
      summary: 'Revoke the retained provider tokens (step-up `oauth-provider-token-management`)',
      responses: {
        '200': { description: 'Revoked, or nothing to revoke.' },
        '202': { description: 'Revocation failed upstream and is retried in the background.' },
      },
    }),
    logout: doc({
      summary: 'End the local session and log out at the provider',
      responses: redirectOrJson('The provider end-session URL', {
        type: 'object',
        properties: { endSessionUrl: { type: ['string', 'null'] } },
      }),
    }),
    backchannelLogout: doc({
      summary:
        'OpenID Connect Back-Channel Logout: the provider ends the local sessions of one of its sessions',
      description:
        "Called by the provider, not by browsers: a form with one `logout_token`, verified with the provider's keys. 200 with an empty body when done (also when no local session matched).",
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['logout_token'],
              properties: { logout_token: { type: 'string' } },
            },
          },
        },
      },
      responses: {
        '200': { description: 'The matching local sessions ended.' },
        '400': problem(
          'Any refusal (`oidc.logout_token.rejected`): a body that is not a form with exactly one `logout_token`, or a token that fails verification or was used before.',
        ),
        '503': problem("The provider's keys or the replay store were unavailable."),
      },
    }),
    revalidate: doc({
      summary: 'Confirm control of the linked identity (no step-up credential)',
      requestBody: formOrJson(RETURN_TO),
      responses: redirectOrJson('The provider authorization URL', BEGUN),
    }),
    reauthenticate: doc({
      summary:
        'Fresh authentication at the provider for a purpose; the callback issues a one-use step-up credential',
      description:
        'Only for providers with signed `auth_time` (OpenID Connect) and purposes of their reauthentication policy; anything else is 404 `oauth.not_found`.',
      requestBody: formOrJson(RETURN_TO),
      responses: redirectOrJson('The provider authorization URL', BEGUN),
    }),
  })
}
