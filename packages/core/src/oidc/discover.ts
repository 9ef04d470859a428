import * as client from 'openid-client'
import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { JWKSAlgorithm, JWKSProvider } from '../jwks/jwks-provider.js'
import { type OIDCDiscoverOptions, OIDCDiscoveryClient } from './discovery-client.js'
import type { IssuerRule } from './id-token.js'
import { discoveryDocumentOf, type OIDCProviderMetadata } from './metadata.js'
import { OIDCProvider } from './oidc-provider.js'
import { mapProviderError } from './provider-errors.js'

export type OIDCClientAuthentication = 'client_secret_basic' | 'client_secret_post' | 'none'

/** Options every `discover*OidcProvider` factory shares. */
export interface OidcProviderCommonOptions {
  readonly clientId: string
  /** Required unless `clientAuthentication` is `none` (a public client). */
  readonly clientSecret?: string
  /** Default `client_secret_basic` with a secret, `none` without. */
  readonly clientAuthentication?: OIDCClientAuthentication
  /** The application's shared discovery client; borrowed, never closed by the provider. */
  readonly discovery: OIDCDiscoveryClient
  /** The application's shared JWKS provider; the discovered `jwks_uri` is registered with it. */
  readonly jwks: JWKSProvider
  /** Default scopes of every request; must contain `openid`. Default `openid email profile`. */
  readonly scopes?: readonly string[]
  /** Push authorization requests (RFC 9126) even when the provider does not require it. */
  readonly pushedAuthorizationRequests?: boolean
  /** Narrow the ID-token algorithms further than the discovery client's pinned list. */
  readonly algorithms?: readonly JWKSAlgorithm[]
  /** Tolerance for `exp`/`iat` of ID tokens, 0..300 s. Default 30. */
  readonly clockSkewSeconds?: number
  /** Longest accepted ID-token lifetime (`exp - iat`). Default 86400 s. */
  readonly maxIdTokenLifetimeSeconds?: number
  /** Time limit of each request to the provider, 100..60000 ms. Default 10000. */
  readonly timeoutMs?: number
}

export interface DiscoverOidcProviderOptions extends OidcProviderCommonOptions {
  /** The registration name (`google`, `corp-sso`): routes and the identity's `provider`. */
  readonly name: string
  readonly issuer: string
  /** Origins besides the issuer's that may serve the JWKS / the OAuth endpoints, for this provider only. */
  readonly jwksOrigins?: readonly string[]
  readonly endpointOrigins?: readonly string[]
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

export const COMMON_OPTIONS: OptionsShape<OidcProviderCommonOptions> = {
  clientId: { required: true, kind: 'string' },
  clientSecret: { kind: 'string' },
  clientAuthentication: { kind: 'string' },
  discovery: { required: true, kind: 'object' },
  jwks: { required: true, kind: 'object' },
  scopes: { kind: 'array' },
  pushedAuthorizationRequests: { kind: 'boolean' },
  algorithms: { kind: 'array' },
  clockSkewSeconds: { kind: 'number', check: integerBetween(0, 300) },
  maxIdTokenLifetimeSeconds: { kind: 'number', check: integerBetween(60, 7 * 86_400) },
  timeoutMs: { kind: 'number', check: integerBetween(100, 60_000) },
}

const DISCOVER_OPTIONS: OptionsShape<DiscoverOidcProviderOptions> = {
  ...COMMON_OPTIONS,
  name: { required: true, kind: 'string' },
  issuer: { required: true, kind: 'string' },
  jwksOrigins: { kind: 'array' },
  endpointOrigins: { kind: 'array' },
}

function configError(code: string, message: string): ConfigurationError {
  return new ConfigurationError(`oidc.provider.${code}`, message)
}

function clientAuth(options: OidcProviderCommonOptions): {
  method: OIDCClientAuthentication
  auth: client.ClientAuth
} {
  const method =
    options.clientAuthentication ?? (options.clientSecret === undefined ? 'none' : 'client_secret_basic')
  const secret = options.clientSecret
  if (method === 'none') {
    if (secret !== undefined) throw configError('client_auth', 'a public client must not have a clientSecret')
    return { method, auth: client.None() }
  }
  if (typeof secret !== 'string' || secret.length === 0) {
    throw configError('client_auth', `${method} needs a clientSecret`)
  }
  if (method === 'client_secret_basic') return { method, auth: client.ClientSecretBasic(secret) }
  if (method === 'client_secret_post') return { method, auth: client.ClientSecretPost(secret) }
  throw configError(
    'client_auth',
    'clientAuthentication must be client_secret_basic, client_secret_post or none',
  )
}

/** What a preset adds to the common options. */
export interface ProviderBuild {
  readonly name: string
  readonly issuer: string
  readonly discover: OIDCDiscoverOptions
  /** How ID-token issuers are judged; default: exactly the discovered issuer. */
  readonly issuerRule?: IssuerRule
  readonly extraParameters?: Readonly<Record<string, string>>
}

/** Builds a provider from validated common options plus what the preset pinned. */
export async function buildOidcProvider(
  options: OidcProviderCommonOptions,
  build: ProviderBuild,
): Promise<OIDCProvider> {
  if (!(options.discovery instanceof OIDCDiscoveryClient)) {
    throw configError('discovery_required', 'discovery must be an OIDCDiscoveryClient')
  }
  const jwks = options.jwks as Partial<JWKSProvider>
  if (typeof jwks.register !== 'function' || typeof jwks.selectKey !== 'function') {
    throw configError('jwks_required', 'jwks must be a JWKSProvider')
  }
  if (!NAME.test(build.name)) throw configError('name_invalid', 'name must be 1-64 of a-z 0-9 _ -')
  const scopes = [...new Set(options.scopes ?? ['openid', 'email', 'profile'])]
  if (!scopes.includes('openid')) throw configError('scopes_invalid', 'scopes must include openid')
  const { method, auth } = clientAuth(options)
  const metadata = await options.discovery.discover(build.issuer, build.discover)
  const algorithms = metadata.idTokenSigningAlgorithms.filter(
    (alg) => options.algorithms === undefined || options.algorithms.includes(alg),
  )
  if (algorithms.length === 0)
    throw configError('algorithms', 'no ID-token algorithm in common with the provider')
  const usePar = metadata.requirePushedAuthorizationRequests || options.pushedAuthorizationRequests === true
  if (usePar && metadata.pushedAuthorizationRequestEndpoint === undefined) {
    throw configError('par_unsupported', 'the provider has no pushed authorization request endpoint')
  }
  options.jwks.register({ issuer: metadata.documentIssuer, jwksUri: metadata.jwksUri, algorithms })
  const timeoutMs = options.timeoutMs ?? 10_000
  const http = options.discovery.createProviderHttpClient(metadata.endpointOrigins, { timeoutMs })
  const skew = options.clockSkewSeconds ?? 30
  const configuration = await configure(metadata, options, method, auth, skew, timeoutMs)
  configuration[client.customFetch] = (url, init) => http.request(url, init as RequestInit)
  return new OIDCProvider({
    name: build.name,
    metadata,
    configuration,
    http,
    idToken: {
      issuer: build.issuerRule ?? { kind: 'exact', issuer: metadata.documentIssuer },
      jwksIssuer: metadata.documentIssuer,
      jwksUri: metadata.jwksUri,
      jwks: options.jwks,
      algorithms,
      clientId: options.clientId,
      clockSkewSeconds: skew,
      maxLifetimeSeconds: options.maxIdTokenLifetimeSeconds ?? 86_400,
    },
    defaultScopes: scopes,
    pushedAuthorizationRequests: usePar,
    extraParameters: build.extraParameters ?? {},
  })
}

/**
 * Lets openid-client process the very document discovery validated (no second network request), so its
 * own issuer handling applies too (including Entra ID's `{tenantid}` issuers).
 */
async function configure(
  metadata: OIDCProviderMetadata,
  options: OidcProviderCommonOptions,
  method: OIDCClientAuthentication,
  auth: client.ClientAuth,
  skew: number,
  timeoutMs: number,
): Promise<client.Configuration> {
  const document = discoveryDocumentOf(metadata)
  if (document === undefined) throw configError('metadata', 'metadata must come from OIDCDiscoveryClient')
  const replay: client.CustomFetch = async (url) => {
    if (url !== metadata.discoveryUrl) throw new TypeError('unexpected discovery request')
    return new Response(document, { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const insecure = options.discovery.allowLoopback && metadata.issuer.startsWith('http:')
  try {
    return await client.discovery(
      new URL(metadata.issuer),
      options.clientId,
      {
        token_endpoint_auth_method: method,
        [client.clockTolerance]: skew,
      },
      auth,
      {
        [client.customFetch]: replay,
        timeout: Math.ceil(timeoutMs / 1000),
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      },
    )
  } catch (error) {
    throw mapProviderError(error, 'configuration')
  }
}

/** Discovers an OpenID Connect provider through the application's shared discovery client and JWKS provider. */
export async function discoverOidcProvider(options: DiscoverOidcProviderOptions): Promise<OIDCProvider> {
  readOptions(options, 'discoverOidcProvider', DISCOVER_OPTIONS)
  return buildOidcProvider(options, {
    name: options.name,
    issuer: options.issuer,
    discover: {
      ...(options.jwksOrigins === undefined ? {} : { jwksOrigins: options.jwksOrigins }),
      ...(options.endpointOrigins === undefined ? {} : { endpointOrigins: options.endpointOrigins }),
    },
  })
}
