// The fetch form learns its client's address from a source named for the runtime: a `Request` carries no
// socket. Without one (or when it answers undefined), per-address limits count every such request under
// one shared key: a sign-in limit is reached together, never skipped.
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  type LocalAccountsOptions,
  MemoryRateLimitStore,
  MemorySessionStore,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import {
  createFetchSecurity,
  type FetchSecurityOptions,
  forwardedClientAddress,
  headerClientAddress,
} from '@portcullis/hono/fetch'
import { commonPasswordScreen } from '@portcullis/password-blocklist'

/** A stand-in hasher: these examples show where the address comes from, not password hashing. */
const hasher: PasswordHasher = {
  hash: async (password) => `plain:${password}`,
  verify: async (hash, password) => hash === `plain:${password}`,
  needsRehash: () => false,
}

export function localAccounts(overrides: Partial<LocalAccountsOptions> = {}): LocalAccounts {
  return new LocalAccounts({
    profile: 'session',
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore(),
    rateLimits: new MemoryRateLimitStore(),
    hasher,
    publicOrigin: 'https://app.example',
    passwordScreen: commonPasswordScreen(),
    rateLimit: { perAddress: { limit: 3, windowSeconds: 900 } },
    ...overrides,
  })
}

const options = (local: LocalAccounts): FetchSecurityOptions => ({ mechanisms: local.mechanisms, local })

// #region bun
// Bun passes its server beside the request: `Bun.serve({ fetch: onBun.fetch })`.
interface BunServer {
  requestIP(request: Request): { readonly address: string } | null
}
export const onBun = (local: LocalAccounts) =>
  createFetchSecurity({
    ...options(local),
    clientAddress: (request, server) => (server as BunServer).requestIP(request)?.address,
  })
// #endregion bun

// #region deno
// Deno passes the connection's info: `Deno.serve(onDeno.fetch)`.
interface DenoServeInfo {
  readonly remoteAddr: { readonly hostname: string }
}
export const onDeno = (local: LocalAccounts) =>
  createFetchSecurity({
    ...options(local),
    clientAddress: (_request, info) => (info as DenoServeInfo).remoteAddr.hostname,
  })
// #endregion deno

// #region workers
// Cloudflare sets CF-Connecting-IP itself, replacing what a client sent: `export default { fetch }`.
export const onWorkers = (local: LocalAccounts) =>
  createFetchSecurity({ ...options(local), clientAddress: headerClientAddress('CF-Connecting-IP') })
// #endregion workers

// #region nextjs
// Next.js route handlers see no socket. Behind a proxy every request passes through (one that appends
// the client's address to X-Forwarded-For, or sets it), the rightmost entry is the client; list further
// proxies of your own as trustedProxies. Never on a server clients reach directly: they write the header.
export const onNext = (local: LocalAccounts) =>
  createFetchSecurity({ ...options(local), clientAddress: forwardedClientAddress({ trustedProxies: [] }) })
// #endregion nextjs
