// Portcullis for the whole application: the mechanisms (a session cookie, API keys) and the fetch form
// serving the generated routes (`/api/auth/...`, `/api/mcp`) and every `route(...)` of lib/routes.ts.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { ApiKeyService, apiKey } from '@portcullis/core/api-keys'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { createFetchSecurity, forwardedClientAddress } from '@portcullis/hono/fetch'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
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
  passwordScreen: commonPasswordScreen(),
  // Failed sign-ins per client (an IPv4 address, or an IPv6 /64) in 15 minutes.
  rateLimit: {
    perAddress: { limit: Number(process.env.SIGN_IN_LIMIT_PER_ADDRESS ?? 100), windowSeconds: 900 },
  },
})

export const apiKeys = new ApiKeyService({
  store: stores.apiKeys,
  peppers: stores.peppers,
  prefix: 'example',
})
// #endregion accounts

// #region client-address
// A route handler sees no socket: the client's address is the rightmost X-Forwarded-For entry, written by
// the proxy every request passes through (Vercel, a load balancer, nginx with `$proxy_add_x_forwarded_for`).
// Further proxies of your own, between that one and the client, go in TRUSTED_PROXIES. Next.js keeps a
// header the client sent, so deploy this behind that proxy only.
const clientAddress = forwardedClientAddress({
  trustedProxies: (process.env.TRUSTED_PROXIES ?? '').split(',').filter((entry) => entry.trim() !== ''),
})
// #endregion client-address

// #region security
export const portcullis = createFetchSecurity({
  mechanisms: [...local.mechanisms, apiKey({ service: apiKeys })],
  // What a verified principal may do: people are members, API keys act as agents.
  authorizationResolver: ({ principal }) => ({ roles: principal.kind === 'user' ? ['member'] : ['agent'] }),
  openapi: { path: '/api/openapi.json', info: { title: 'Portcullis on Next.js', version: '1.0.0' } },
  base: '/api',
  clientAddress,
  // POST /api/auth/login, /api/auth/logout, GET /api/auth/sessions, /api/auth/csrf, ...
  local,
  // POST /api/mcp: the routes marked `mcpResource`, read in-process with the caller's credentials.
  // Only for requests to this application's own host: another Host is refused (DNS rebinding).
  mcp: { scheme: 'example', auth: anyOf('session', 'api-key'), allowedHosts: [new URL(publicOrigin).host] },
})
// #endregion security
