import type { IncomingMessage, ServerResponse } from 'node:http'
import type { OAuthGrantSummary } from '@portcullis/core/authorization-server'
import { isPortcullisError } from '@portcullis/core/errors'
import type Provider from 'oidc-provider'
import { inProcessMetadata } from './metadata.js'
import { loadOidcProvider } from './oidc-provider-module.js'
import { type AuthorizationServerOptions, resolveOptions } from './options.js'
import { outboundFetch } from './outbound-fetch.js'
import { DEFAULT_RETRY_AFTER_SECONDS, persistenceBridge } from './persistence-bridge.js'
import { sendProblem } from './problem.js'
import { providerConfiguration } from './provider-configuration.js'
import { type RegistrationLimit, registrationLimit } from './registration-limit.js'
import { signingKeyRing } from './signing-keys.js'

/** A grant on the "Connected apps" page, with what the client says of itself. */
export interface ConnectedApp extends OAuthGrantSummary {
  /**
   * The client's `client_name` as the consent page showed it (kept with the grant); for a grant saved
   * without it, looked up when its metadata resolves and names it.
   */
  readonly clientName: string | undefined
  /**
   * The host the consent page showed (the client id URL's, else the redirect URI's); for a grant saved
   * without it, the host of the client's `client_uri`, else of its client id URL.
   */
  readonly clientHost: string | undefined
}

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void

export interface AuthorizationServer {
  /** Serves everything under the issuer's path, interactions included (mount it at that path). */
  readonly handler: NodeListener
  /**
   * Serves the RFC 8414 metadata at `metadataPath` (`/.well-known/oauth-authorization-server{issuer path}`),
   * where MCP clients look for it; mount it on the application's root.
   */
  readonly metadataHandler: NodeListener
  readonly metadataPath: string
  readonly provider: Provider
  readonly issuer: string
  /** The account's active grants with their client's name and host, newest first. */
  connectedApps(accountId: string): Promise<readonly ConnectedApp[]>
  /** Ends one grant of the account (every token of it); false when the account has no such grant. */
  disconnect(accountId: string, grantId: string): Promise<boolean>
  /** The authorization server metadata document, as served to clients on the issuer's host. */
  metadata(): Promise<Record<string, unknown>>
  /** Releases the outbound HTTP connections. */
  close(): Promise<void>
}

type MountedRequest = IncomingMessage & { originalUrl?: string }

const hostOf = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined
  return URL.parse(value)?.host || undefined
}

/**
 * An OAuth 2.1 authorization server for MCP clients over the application's own accounts, built on
 * oidc-provider: authorization code with PKCE S256, RFC 9068 JWT access tokens for exactly one RFC 8707
 * resource, rotating refresh tokens whose reuse revokes the grant, Client ID Metadata Documents, RFC 7009
 * revocation, RFC 8414 metadata and (when asked for) RFC 7591 registration.
 */
export async function createAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const resolved = resolveOptions(options)
  const ring = await signingKeyRing(options.signingKeys)
  const clock = Date.now
  const oidc = await loadOidcProvider()
  const outbound = outboundFetch(resolved.cimd)
  const bridge = persistenceBridge({
    store: options.store,
    clock,
    unusedClientTtlSeconds: resolved.registration?.unusedClientTtlSeconds,
    errors: oidc.errors,
  })
  let provider: Provider
  try {
    provider = new oidc.default(
      resolved.issuer.href.replace(/\/$/, ''),
      providerConfiguration({
        options: resolved,
        store: options.store,
        bridge,
        accounts: options.accounts,
        ring,
        outbound,
        cookieKeys: options.cookieKeys,
        clock,
        oidc,
        interactions: options.interactions,
      }),
    )
  } catch (error) {
    await outbound.close()
    throw error
  }
  provider.use(bridge.middleware as Parameters<Provider['use']>[0])
  const callback = provider.callback()
  const { mountPath } = resolved
  const limit: RegistrationLimit | undefined =
    resolved.registration === undefined ? undefined : registrationLimit(resolved.registration, clock)

  /** Makes `req.url` relative to the mount path (a bare node:http server or Fastify passes it whole). */
  const relative = (req: MountedRequest): string => {
    const url = req.url ?? '/'
    if (
      req.originalUrl === undefined &&
      mountPath !== '' &&
      (url === mountPath || url.startsWith(`${mountPath}/`) || url.startsWith(`${mountPath}?`))
    ) {
      req.originalUrl = url
      req.url = url.slice(mountPath.length) || '/'
      if (req.url.startsWith('?')) req.url = `/${req.url}`
    }
    return req.url ?? '/'
  }

  const handler: NodeListener = (req, res) => {
    const path = relative(req).split('?')[0] ?? '/'
    if (path.startsWith('/interaction/')) {
      options.interactions.handle(req, res, provider).catch(() => sendProblem(res, 500, 'interaction_failed'))
      return
    }
    if (path === '/reg' && req.method === 'POST' && limit !== undefined) {
      limit(req).then(
        (decision) => {
          if (decision.allowed) {
            void callback(req, res)
            return
          }
          req.resume()
          sendProblem(res, 429, 'rate_limited', {
            headers: { 'retry-after': String(decision.retryAfterSeconds) },
          })
        },
        (error: unknown) => {
          // The count could not be taken: refused, never let through (503 when the store is down or full).
          req.resume()
          if (!isPortcullisError(error) || error.errorClass !== 'unavailable') {
            sendProblem(res, 500, 'server_error')
            return
          }
          const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds
          const retryAfter =
            typeof seconds === 'number' && seconds > 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS
          sendProblem(res, 503, 'temporarily_unavailable', { headers: { 'retry-after': String(retryAfter) } })
        },
      )
      return
    }
    void callback(req, res)
  }

  const metadataPath = `/.well-known/oauth-authorization-server${mountPath}`
  const metadataHandler: NodeListener = (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') {
      sendProblem(res, 405, 'method_not_allowed', { headers: { allow: 'GET, HEAD, OPTIONS' } })
      return
    }
    const query = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?')) : ''
    req.url = `/.well-known/oauth-authorization-server${query}`
    ;(req as MountedRequest).originalUrl = `${mountPath}${req.url}`
    void callback(req, res)
  }

  const server: AuthorizationServer = {
    handler,
    metadataHandler,
    metadataPath,
    provider,
    issuer: provider.issuer,
    async connectedApps(accountId) {
      const grants = await options.store.list(accountId)
      return Promise.all(
        grants.map(async (grant) => {
          // The client as the consent page showed it, kept with the grant: no lookup, so the name stays
          // when the client's metadata document cannot be fetched. Older grants look the client up.
          if (grant.clientName !== undefined) return grant
          const client = await provider.Client.find(grant.clientId).catch(() => undefined)
          return {
            ...grant,
            clientName: typeof client?.clientName === 'string' ? client.clientName : undefined,
            clientHost: grant.clientHost ?? hostOf(client?.clientUri) ?? hostOf(grant.clientId),
          }
        }),
      )
    },
    disconnect: (accountId, grantId) => options.store.disconnect(accountId, grantId),
    metadata: () => inProcessMetadata(callback, resolved.issuer, mountPath),
    close: () => outbound.close(),
  }
  Object.defineProperty(server, Symbol.for('nodejs.util.inspect.custom'), {
    value: () => `AuthorizationServer { issuer: ${provider.issuer} }`,
  })
  Object.defineProperty(server, 'toString', { value: () => `AuthorizationServer(${provider.issuer})` })
  return Object.freeze(server)
}
