import { ApiKeyService, ApiKeyUsageRecorder } from '@portcullis/core/api-keys'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import type { MCPResourceRegistry } from '@portcullis/core/mcp'
import { createSecurity, type ResourceApp, type ResourceRoutePath } from '@portcullis/express'
import { PostgresApiKeyStore, type PostgresClient } from '@portcullis/postgres'
import { apiKeyMechanism, workloadMechanism } from './api/mechanisms.js'
import type { DemoParts } from './app.js'
import type { ReferenceContext } from './app-context.js'
import { DemoSignIn } from './demo-sign-in/demo-sign-in.js'
import { DemoDirectory } from './directory/demo-directory.js'
import { referenceMcpEndpoint } from './mcp/mcp-endpoint.js'
import type { ProviderSettings } from './providers/provider-settings.js'
import type { KeyMaterial } from './secrets/key-material.js'
import { SecurityEventLog } from './security-events/event-log.js'

export interface ComposeOptions {
  readonly postgres: PostgresClient
  readonly keys: KeyMaterial
  /** Where this process listens (its own JWKS is fetched from there). */
  readonly selfUrl: string
  /** The origin browsers and clients use. */
  readonly publicOrigin: string
  /** Other origins the app is reached at (CSRF). */
  readonly trustedOrigins: readonly string[]
  readonly trustedProxies: readonly string[]
  readonly idp?: { readonly issuer: string }
  readonly providers: readonly ProviderSettings[]
}

/** The demo's parts, plus what to do once routes are declared (`attach`) and at shutdown (`close`). */
export interface ComposedDemo extends DemoParts {
  /** Publishes the app's marked routes to the MCP endpoint; call after `createReferenceApp`. */
  attach(app: ResourceApp): Promise<void>
  close(): Promise<void>
}

const isLoopbackHttp = (url: string) => /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(url)

/**
 * The composition root: every adapter is built here and nowhere else. Mechanisms: the session (the demo
 * stand-in until the local-accounts routes exist), API keys over Postgres, and workload JWTs from the demo
 * issuer. One authorization resolver (the demo directory) serves them all.
 */
export function composeDemo(options: ComposeOptions): ComposedDemo {
  const { postgres, keys, publicOrigin } = options
  const directory = new DemoDirectory()
  const events = new SecurityEventLog()
  const store = new PostgresApiKeyStore({ client: postgres })
  const service = new ApiKeyService({ store, peppers: keys.peppers, prefix: 'demo' })
  const usage = new ApiKeyUsageRecorder({ store, flushIntervalMs: 5_000 })
  // One JWKS provider per process, shared by every JWT verifier (the OIDC providers will join it).
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: isLoopbackHttp(options.selfUrl) })
  const signIn = new DemoSignIn({
    key: keys.demoSessionKey,
    directory,
    publicOrigin,
    trustedOrigins: options.trustedOrigins,
    events: events.sink,
  })
  const security = createSecurity({
    mechanisms: [signIn.mechanism, apiKeyMechanism(service, usage), workloadMechanism(jwks, options.selfUrl)],
    authorizationResolver: directory.resolver(),
    // Pages post forms: under `no-referrer` browsers send `Origin: null` with them, which the CSRF check
    // must refuse. `same-origin` keeps the real Origin on same-origin requests and still sends no referrer
    // to other sites.
    headers: { 'Referrer-Policy': 'same-origin' },
    openapi: {
      info: { title: 'Portcullis reference app', version: '0.0.0' },
      servers: [{ url: publicOrigin }],
    },
  })
  // Created before any route is declared, so a marking mistake throws where the route is declared.
  const mcp = referenceMcpEndpoint(security, publicOrigin)
  let registry: MCPResourceRegistry<ResourceRoutePath> | undefined
  const context: ReferenceContext = {
    postgres,
    directory,
    events,
    apiKeys: { service, store },
    publicOrigin,
    providers: options.providers,
    ...(options.idp === undefined ? {} : { idp: options.idp }),
  }
  return {
    context,
    security,
    mcp,
    registry: () => registry,
    signIn,
    signer: keys.workloadSigner,
    trustedProxies: options.trustedProxies,
    async attach(app) {
      registry = await mcp.attach(app)
    },
    async close() {
      await usage.close()
      await jwks.close()
    },
  }
}
