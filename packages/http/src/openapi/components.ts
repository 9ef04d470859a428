import type { RegisteredRoute } from '../routing/route-registry.js'

type JsonObject = Record<string, unknown>

const problemContent = () => ({
  'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
})

/** Shared schemas for the problems Portcullis answers with. */
export function problemSchemas(): Record<string, JsonObject> {
  return {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details with a stable `code`.',
      required: ['type', 'title', 'status', 'code'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        code: { type: 'string', examples: ['authentication.required'] },
        detail: { type: 'string' },
      },
    },
  }
}

// Responses are inlined (not Reference Objects): the 2021 OpenAPI 3.1 schema requires absolute `$ref`
// URIs there, so inline objects keep the document valid under every published 3.1 schema.
const PROBLEM_RESPONSES: Readonly<Record<string, () => JsonObject>> = {
  '401': () => ({
    description: 'Authentication required, or a presented credential was rejected.',
    content: problemContent(),
  }),
  '403': () => ({ description: 'Authenticated but not allowed.', content: problemContent() }),
  '503': () => ({
    description: 'A dependency needed to authenticate is unavailable.',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying (always sent).',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: problemContent(),
  }),
}

/** The route's documented responses plus the problems its policy and guards can answer. */
export function responsesFor(route: RegisteredRoute): JsonObject {
  const given = route.options.openapi?.responses
  const responses: JsonObject = given === undefined ? { '200': { description: 'Successful response.' } } : {}
  for (const [status, response] of Object.entries(given ?? {})) responses[status] = { ...response }
  const add = (status: string) => {
    const build = PROBLEM_RESPONSES[status]
    if (build !== undefined) responses[status] ??= build()
  }
  const guarded = route.guards.guards.length > 0 || route.guards.stepUp !== undefined
  if (route.policy.authenticates || guarded) {
    add('401')
    add('503')
  }
  if (guarded) add('403')
  return responses
}
