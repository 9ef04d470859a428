// Portcullis for the whole application: the mechanisms (a session cookie, API keys) and the fetch form
// serving the generated routes (`/api/auth/...`, `/api/mcp`) and every `route(...)` of lib/routes.ts.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { ApiKeyService, apiKey } from '@portcullis/core/api-keys'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { createFetchSecurity } from '@portcullis/hono/fetch'
import { stores } from './stores'

// #region accounts
/** Where the application is reached: the CSRF check compares the `Origin` of sign-ins with it. */
export const publicOrigin = process.env.PUBLIC_ORIGIN ?? 'http://localhost:3000'

export const local = new LocalAccounts({
  profile: 'session',
  accounts: stores.accounts,
  sessions: stores.sessions,
  rateLimits: stores.rateLimits,
  hasher: argon2idPasswordHasher(),
  // Accounts are created by the application (lib/demo-data.ts), not by visitors.
  registration: 'closed',
  publicOrigin,
})

export const apiKeys = new ApiKeyService({
  store: stores.apiKeys,
  peppers: stores.peppers,
  prefix: 'example',
})
// #endregion accounts

// #region security
export const portcullis = createFetchSecurity({
  mechanisms: [...local.mechanisms, apiKey({ service: apiKeys })],
  // What a verified principal may do: people are members, API keys act as agents.
  authorizationResolver: ({ principal }) => ({ roles: principal.kind === 'user' ? ['member'] : ['agent'] }),
  openapi: { path: '/api/openapi.json', info: { title: 'Portcullis on Next.js', version: '1.0.0' } },
  base: '/api',
  // POST /api/auth/login, /api/auth/logout, GET /api/auth/sessions, /api/auth/csrf, ...
  local,
  // POST /api/mcp: the routes marked `mcpResource`, read in-process with the caller's credentials.
  mcp: { scheme: 'example', auth: anyOf('session', 'api-key') },
})
// #endregion security
