// The fetch form: Portcullis as `(request: Request) => Promise<Response>` handlers, for runtimes and
// frameworks without middleware (`Bun.serve`, `Deno.serve`, Next.js route handlers).
import { randomBytes } from 'node:crypto'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { requiresTenantRole } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { createFetchSecurity, readBody } from '@portcullis/hono/fetch'

export const apiKeys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: '2026-11', secret: randomBytes(32) }),
  prefix: 'notes',
})

// #region fetch-form
export const portcullis = createFetchSecurity({
  mechanisms: [apiKey({ service: apiKeys })],
  authorizationResolver: async ({ principal }) => ({
    tenants: new Map([[`team-of-${principal.id}`, ['owner']]]),
  }),
  base: '/api',
  // POST /api/mcp publishes the routes marked mcpResource; each read runs in-process through `fetch`.
  // The fetch form cannot see the address it was reached on: name the hosts MCP answers for.
  mcp: { scheme: 'notes', allowedHosts: ['notes.example', 'localhost'] },
})

// Each `route` returns a handler serving it; the verified context reaches the handler as an argument.
export const readNote = portcullis.route(
  'GET',
  '/api/tenants/:tenantId/notes/:id',
  {
    auth: required('api-key'),
    guards: [requiresTenantRole({ roles: ['owner'] })],
    mcpResource: 'note',
    mcpResourceTemplate: 'notes://tenants/{tenantId}/notes/{id}',
  },
  async (_request, { security, params }) => Response.json({ id: params.id, reader: security.principal?.id }),
)

export const saveNote = portcullis.route(
  'POST',
  '/api/notes',
  { auth: required('api-key') },
  async (request) => {
    // at most 4 KiB of JSON or form; over it 413 problem+json naming the limit
    const note = await readBody(request, 4096)
    return Response.json({ saved: note !== undefined }, { status: 201 })
  },
)
// #endregion fetch-form

// #region serve
// Bun: `Bun.serve({ fetch: portcullis.fetch })`; Deno: `Deno.serve(portcullis.fetch)`; `env`, what the
// runtime passes beside the request, reaches the `clientAddress` source (see below).
export default { fetch: portcullis.fetch }
// #endregion serve
