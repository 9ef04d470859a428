import type { AccountRecords } from '@portcullis/core/accounts'
import type { OAuthGrants, OAuthServerStore } from '@portcullis/core/authorization-server'
import {
  ConfigurationError,
  type OptionShapeDescription,
  type OptionsShape,
  readOptions,
} from '@portcullis/core/errors'
import {
  DEFAULT_IPV6_PREFIX_LENGTH,
  MemoryRateLimitStore,
  parseTrustedProxies,
  type RateLimitStore,
  type TrustedProxies,
} from '@portcullis/core/local-accounts'
import type { InteractionHandler } from '../interaction-handler.js'
import type { SigningJwk } from './signing-keys.js'

/** A DNS resolver: every address of a host name. */
export type AddressLookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>

/** One protected resource (RFC 8707 resource indicator) the server issues access tokens for. */
export interface ResourceOptions {
  /** Absolute URL, compared exactly; becomes the token's `aud`. */
  readonly indicator: string
  /** Scope name -> human description (the consent page shows it). */
  readonly scopes: Readonly<Record<string, string>>
  /** Access token lifetime in seconds, 1..3600. Default 300. */
  readonly accessTokenTtlSeconds?: number
}

/** How Client ID Metadata Documents are fetched. */
export interface ClientIdMetadataDocumentOptions {
  /**
   * Development only: document URLs on 127.0.0.1, localhost or [::1] may be fetched (the address guard
   * lets loopback addresses through; every other private address stays refused). The URL is still https
   * (oidc-provider only treats `https://` client ids as documents).
   */
  readonly allowInsecureLoopback?: boolean
  /** Milliseconds for the whole fetch, body included, 100..10000. Default 2500. */
  readonly fetchTimeoutMs?: number
  /** Largest document accepted, in bytes, 256..65536. Default 5120. */
  readonly maxBytes?: number
  /** Extra trusted CA certificates (PEM) for document fetches: for development certificates only. */
  readonly ca?: string | readonly string[]
  /** The DNS resolver of document fetches (default `node:dns` lookup); its answers are still checked. */
  readonly lookup?: AddressLookup
}

/** How registrations are counted per client. */
export interface RegistrationRateLimitOptions {
  /** Registrations per client and minute. Default 10. */
  readonly perMinute?: number
  /**
   * IPv6 clients are counted per network of this many leading bits (0 to 128). Default 64: a client that
   * owns a /64 (a home connection, a cloud host) is one client, not 2^64. IPv4 addresses count one by one.
   */
  readonly ipv6PrefixLength?: number
}

/** RFC 7591 dynamic client registration: off unless this option is given. */
export interface RegistrationOptions {
  readonly rateLimit?: RegistrationRateLimitOptions
  /**
   * Where registrations are counted: a `RateLimitStore` (`PostgresRateLimitStore` shares the count between
   * every instance). Default a `MemoryRateLimitStore` of this instance: each instance counts on its own.
   */
  readonly rateLimits?: RateLimitStore
  /** A registered client nothing was ever granted to is dropped after this many seconds. Default 1 day. */
  readonly unusedClientTtlSeconds?: number
  /**
   * Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` is believed when counting registrations:
   * the client is the rightmost untrusted hop. Default none: the direct peer.
   */
  readonly trustedProxies?: readonly string[]
}

/** Which clients may be built from registrations and metadata documents. */
export interface ClientOptions {
  /**
   * Private-use URI schemes (RFC 8252 §7.1) a native client (`application_type: "native"`) may use in
   * its redirect URIs, without `:` (`['cursor']` for Cursor's `cursor://anysphere.cursor-retrieval/...`).
   * Default none: every redirect URI is https or http on loopback, as the MCP authorization spec says.
   * A web client never gets them; such a redirect URI has no userinfo and is matched exactly.
   * `http`, `https` and the schemes browsers run or read locally (`javascript`, `data`, `file`, ...)
   * are refused at startup.
   */
  readonly privateUseRedirectSchemes?: readonly string[]
}

export interface AuthorizationServerOptions {
  /** The issuer URL; its path is where the server is mounted (`https://app.example/oauth`). */
  readonly issuer: string
  readonly store: OAuthServerStore & OAuthGrants
  /** Where `sub` is resolved: the account must exist and be active. */
  readonly accounts: Pick<AccountRecords, 'getAccount'>
  readonly interactions: InteractionHandler
  readonly resources: readonly ResourceOptions[]
  /** The key ring: private JWKs, the first signs, every one is published at `jwks_uri`. */
  readonly signingKeys: readonly SigningJwk[]
  readonly clientIdMetadataDocuments?: ClientIdMetadataDocumentOptions
  readonly registration?: RegistrationOptions
  readonly clients?: ClientOptions
  /** Keys of the provider's cookies (`keygrip` secrets, newest first); random per process when absent. */
  readonly cookieKeys?: readonly string[]
}

/** The options after validation, with defaults applied. */
export interface ResolvedOptions {
  readonly issuer: URL
  readonly mountPath: string
  readonly resources: ReadonlyMap<string, { readonly scopes: readonly string[]; readonly ttl: number }>
  readonly cimd: {
    readonly allowInsecureLoopback: boolean
    readonly fetchTimeoutMs: number
    readonly maxBytes: number
    readonly ca: readonly string[]
    readonly lookup: AddressLookup | undefined
  }
  readonly registration:
    | {
        readonly perMinute: number
        readonly ipv6PrefixLength: number
        readonly rateLimits: RateLimitStore
        readonly unusedClientTtlSeconds: number
        readonly trustedProxies: TrustedProxies
      }
    | undefined
  readonly clients: {
    /** Lower-case scheme names without `:`. */
    readonly privateUseRedirectSchemes: ReadonlySet<string>
  }
}

const fail = (code: string, option: string, message: string): never => {
  throw new ConfigurationError(`authorization_server.${code}`, message, {
    option: `createAuthorizationServer.${option}`,
  })
}

const integer = (value: unknown, min: number, max: number, option: string, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail('invalid_option', option, `${option} must be an integer from ${min} to ${max}`)
  }
  return value as number
}

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

function resolveIssuer(issuer: unknown): URL {
  const url = typeof issuer === 'string' ? URL.parse(issuer) : null
  if (url === null) return fail('invalid_issuer', 'issuer', 'issuer must be an absolute URL')
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    fail('invalid_issuer', 'issuer', 'issuer must be http(s)')
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    fail('invalid_issuer', 'issuer', 'issuer must have no query, fragment or credentials')
  }
  return url
}

function resolveResources(resources: unknown): ResolvedOptions['resources'] {
  if (!Array.isArray(resources) || resources.length === 0) {
    return fail('invalid_resources', 'resources', 'resources must list at least one resource')
  }
  const out = new Map<string, { scopes: readonly string[]; ttl: number }>()
  resources.forEach((resource: Partial<ResourceOptions>, index) => {
    const option = `resources[${index}]`
    const url = typeof resource?.indicator === 'string' ? URL.parse(resource.indicator) : null
    if (url === null || url.hash !== '' || resource.indicator?.includes('#')) {
      fail(
        'invalid_resources',
        `${option}.indicator`,
        'a resource indicator must be an absolute URL without fragment',
      )
    }
    const indicator = resource.indicator as string
    if (out.has(indicator))
      fail('invalid_resources', `${option}.indicator`, 'resource indicators must be unique')
    const scopes = resource.scopes
    if (typeof scopes !== 'object' || scopes === null) {
      fail('invalid_resources', `${option}.scopes`, 'scopes must map scope names to descriptions')
    }
    const names = Object.keys(scopes as object)
    if (names.length === 0 || !names.every((name) => SCOPE_TOKEN.test(name))) {
      fail('invalid_resources', `${option}.scopes`, 'scopes must name at least one valid scope token')
    }
    if (names.includes('openid') || names.includes('offline_access')) {
      fail('invalid_resources', `${option}.scopes`, 'openid and offline_access are not resource scopes')
    }
    const ttl = integer(resource.accessTokenTtlSeconds, 1, 3600, `${option}.accessTokenTtlSeconds`, 300)
    out.set(indicator, { scopes: names, ttl })
  })
  return out
}

function resolveCimd(options: ClientIdMetadataDocumentOptions | undefined): ResolvedOptions['cimd'] {
  const o = options ?? {}
  if (o.allowInsecureLoopback !== undefined && typeof o.allowInsecureLoopback !== 'boolean') {
    fail('invalid_option', 'clientIdMetadataDocuments.allowInsecureLoopback', 'must be a boolean')
  }
  if (o.lookup !== undefined && typeof o.lookup !== 'function') {
    fail('invalid_option', 'clientIdMetadataDocuments.lookup', 'must be a function')
  }
  const ca = o.ca === undefined ? [] : typeof o.ca === 'string' ? [o.ca] : [...o.ca]
  if (!ca.every((pem) => typeof pem === 'string' && pem.includes('BEGIN CERTIFICATE'))) {
    fail('invalid_option', 'clientIdMetadataDocuments.ca', 'must be PEM certificates')
  }
  return {
    allowInsecureLoopback: o.allowInsecureLoopback === true,
    fetchTimeoutMs: integer(o.fetchTimeoutMs, 100, 10_000, 'clientIdMetadataDocuments.fetchTimeoutMs', 2500),
    maxBytes: integer(o.maxBytes, 256, 65_536, 'clientIdMetadataDocuments.maxBytes', 5120),
    ca,
    lookup: o.lookup,
  }
}

function resolveRegistration(options: RegistrationOptions | undefined): ResolvedOptions['registration'] {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null)
    fail('invalid_option', 'registration', 'must be an object')
  let trustedProxies: TrustedProxies
  try {
    trustedProxies = parseTrustedProxies(options.trustedProxies ?? [])
  } catch (cause) {
    throw new ConfigurationError(
      'authorization_server.invalid_option',
      'trustedProxies must list addresses or CIDR ranges',
      { option: 'createAuthorizationServer.registration.trustedProxies', cause },
    )
  }
  const store = options.rateLimits
  if (store !== undefined && (typeof store.consume !== 'function' || typeof store.reset !== 'function')) {
    fail('invalid_option', 'registration.rateLimits', 'rateLimits must be a RateLimitStore (consume, reset)')
  }
  return {
    trustedProxies,
    ipv6PrefixLength: integer(
      options.rateLimit?.ipv6PrefixLength,
      0,
      128,
      'registration.rateLimit.ipv6PrefixLength',
      DEFAULT_IPV6_PREFIX_LENGTH,
    ),
    rateLimits: store ?? new MemoryRateLimitStore(),
    perMinute: integer(options.rateLimit?.perMinute, 1, 10_000, 'registration.rateLimit.perMinute', 10),
    unusedClientTtlSeconds: integer(
      options.unusedClientTtlSeconds,
      60,
      30 * 86_400,
      'registration.unusedClientTtlSeconds',
      86_400,
    ),
  }
}

/** RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`. */
const SCHEME = /^[a-z][a-z0-9+.-]*$/i

/** Never a private-use scheme: the web's own, and those a browser runs or reads locally. */
const NOT_PRIVATE_USE: ReadonlySet<string> = new Set([
  'http',
  'https',
  'javascript',
  'vbscript',
  'data',
  'blob',
  'file',
  'about',
])

function resolveClients(options: ClientOptions | undefined): ResolvedOptions['clients'] {
  const option = 'clients.privateUseRedirectSchemes'
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    fail('invalid_option', 'clients', 'clients must be an object')
  }
  const schemes = options?.privateUseRedirectSchemes ?? []
  if (!Array.isArray(schemes)) return fail('invalid_option', option, `${option} must be a list of schemes`)
  const out = new Set<string>()
  for (const scheme of schemes as unknown[]) {
    if (typeof scheme !== 'string' || !SCHEME.test(scheme)) {
      fail(
        'invalid_option',
        option,
        `${option} must list URI scheme names without ':' (RFC 3986: a letter, then letters, digits, +, - or .)`,
      )
    }
    const name = (scheme as string).toLowerCase()
    if (NOT_PRIVATE_USE.has(name)) {
      fail('invalid_option', option, `${option} must not list ${name}: it is no private-use scheme`)
    }
    out.add(name)
  }
  return { privateUseRedirectSchemes: out }
}

/** Any value: the resolver below checks it (and keeps its `authorization_server.*` code). */
const ANY = {}

const RESOURCE_SHAPE: OptionShapeDescription = { indicator: ANY, scopes: ANY, accessTokenTtlSeconds: ANY }

/** The keys each options object may have: anything else is refused (`configuration.unknown_option`). */
const SHAPE: OptionsShape<AuthorizationServerOptions> = {
  issuer: { required: true, code: 'authorization_server.invalid_issuer' },
  store: { required: true, code: 'authorization_server.invalid_store' },
  accounts: { required: true, code: 'authorization_server.invalid_accounts' },
  interactions: { required: true, code: 'authorization_server.invalid_interactions' },
  resources: {
    required: true,
    code: 'authorization_server.invalid_resources',
    elements: { shape: RESOURCE_SHAPE, code: 'authorization_server.invalid_resources' },
  },
  signingKeys: { required: true, code: 'authorization_server.invalid_signing_key' },
  clientIdMetadataDocuments: {
    code: 'authorization_server.invalid_option',
    shape: { allowInsecureLoopback: ANY, fetchTimeoutMs: ANY, maxBytes: ANY, ca: ANY, lookup: ANY },
  },
  registration: {
    code: 'authorization_server.invalid_option',
    shape: {
      rateLimit: {
        code: 'authorization_server.invalid_option',
        shape: { perMinute: ANY, ipv6PrefixLength: ANY },
      },
      rateLimits: ANY,
      unusedClientTtlSeconds: ANY,
      trustedProxies: ANY,
    },
  },
  clients: { code: 'authorization_server.invalid_option', shape: { privateUseRedirectSchemes: ANY } },
  cookieKeys: ANY,
}

/**
 * Validates the options at startup; throws `ConfigurationError`: `configuration.unknown_option` for a
 * key no options object here has (a typo, or an option at the wrong level such as a top-level
 * `trustedProxies`, which belongs under `registration`), an `authorization_server.*` code otherwise.
 */
export function resolveOptions(options: AuthorizationServerOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null)
    return fail('invalid_option', 'options', 'options are required')
  readOptions(options, 'createAuthorizationServer', SHAPE)
  const issuer = resolveIssuer(options.issuer)
  const store = options.store as Partial<OAuthServerStore & OAuthGrants> | undefined
  const methods = [
    'upsert',
    'find',
    'consume',
    'destroy',
    'revokeGrant',
    'list',
    'disconnect',
    'status',
  ] as const
  if (store === undefined || !methods.every((name) => typeof store[name] === 'function')) {
    fail('invalid_store', 'store', 'store must implement OAuthServerStore and OAuthGrants')
  }
  if (typeof options.accounts?.getAccount !== 'function') {
    fail('invalid_accounts', 'accounts', 'accounts must have getAccount')
  }
  if (typeof options.interactions?.handle !== 'function') {
    fail('invalid_interactions', 'interactions', 'interactions must implement InteractionHandler')
  }
  if (
    options.cookieKeys !== undefined &&
    (!Array.isArray(options.cookieKeys) ||
      options.cookieKeys.length === 0 ||
      !options.cookieKeys.every((key) => typeof key === 'string' && key.length >= 32))
  ) {
    fail('invalid_option', 'cookieKeys', 'cookieKeys must be strings of at least 32 characters')
  }
  const pathname = issuer.pathname.endsWith('/') ? issuer.pathname.slice(0, -1) : issuer.pathname
  return {
    issuer,
    mountPath: pathname,
    resources: resolveResources(options.resources),
    cimd: resolveCimd(options.clientIdMetadataDocuments),
    registration: resolveRegistration(options.registration),
    clients: resolveClients(options.clients),
  }
}
