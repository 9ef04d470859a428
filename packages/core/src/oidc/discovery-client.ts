import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { isJWKSAlgorithm, JWKS_ALGORITHMS, type JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { type JsonValue, parseStrictJson } from '../jwks/strict-json.js'
import { discoveryFailed, OIDCError, OIDCErrorCodes } from './errors.js'
import { discoveryUrl, normalizeIssuer, normalizeOrigin } from './issuer-url.js'
import { type OIDCProviderMetadata, validateDiscoveryDocument } from './metadata.js'
import {
  defaultHostResolver,
  type HostResolver,
  type OIDCFetch,
  OIDCRequestError,
  OutboundHttpClient,
  type OutboundHttpPolicy,
} from './outbound-http.js'

export interface OIDCDiscoveryClientOptions {
  /** Issuers that may be discovered, compared after normalization (lower-case host, default port dropped). */
  readonly allowedIssuers: readonly string[]
  /** Origins besides the issuer's that may serve a `jwks_uri`. */
  readonly allowedJwksOrigins?: readonly string[]
  /** Origins besides the issuer's for authorization, token, PAR, end-session and revocation endpoints. */
  readonly allowedEndpointOrigins?: readonly string[]
  /** Allow `http:` and loopback addresses: local development and tests only. Default false. */
  readonly allowLoopback?: boolean
  /** Allow private and link-local addresses (an IdP inside your network). Default false. */
  readonly allowPrivateAddresses?: boolean
  /** Ports allowed for `https:`. Default `[443]`. */
  readonly allowedPorts?: readonly number[]
  /** Whole-request time limit, body included. Default 5000 ms (100..60000). */
  readonly timeoutMs?: number
  /** Largest discovery document. Default 65536 bytes (1 KiB..1 MiB). */
  readonly maxDocumentBytes?: number
  /** ID-token algorithms providers may use. Default `EdDSA ES256 RS256 PS256`. */
  readonly algorithms?: readonly JWKSAlgorithm[]
  /** Outbound HTTP; default the global `fetch`. */
  readonly fetch?: OIDCFetch
  /** DNS resolution checked against private ranges; default `node:dns` lookup. */
  readonly resolveHost?: HostResolver
}

const LIST = { kind: 'array' } as const
const OPTIONS: OptionsShape<OIDCDiscoveryClientOptions> = {
  allowedIssuers: { required: true, kind: 'array' },
  allowedJwksOrigins: LIST,
  allowedEndpointOrigins: LIST,
  allowLoopback: { kind: 'boolean' },
  allowPrivateAddresses: { kind: 'boolean' },
  allowedPorts: { kind: 'array', elements: { kind: 'number', check: integerBetween(1, 65535) } },
  timeoutMs: { kind: 'number', check: integerBetween(100, 60_000) },
  maxDocumentBytes: { kind: 'number', check: integerBetween(1024, 1024 * 1024) },
  algorithms: LIST,
  fetch: { kind: 'function' },
  resolveHost: { kind: 'function' },
}

/** Per-issuer additions a preset knows about (Google's keys live on www.googleapis.com). */
export interface OIDCDiscoverOptions {
  readonly jwksOrigins?: readonly string[]
  readonly endpointOrigins?: readonly string[]
  /**
   * The `issuer` the document must carry when it differs by design from the configured issuer, compared
   * exactly: Entra ID's multi-tenant endpoints publish `https://login.microsoftonline.com/{tenantid}/v2.0`.
   */
  readonly documentIssuer?: string
}

const MAX_JSON_DEPTH = 64
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i

/**
 * The application's shared, SSRF-safe OIDC discovery client. Only allow-listed issuers are fetched (an
 * issuer outside the list is a `ConfigurationError` before any DNS or network); only `https:` on allowed
 * ports to public addresses (every DNS answer checked); redirects are never followed; documents are
 * bounded in size and time; the document's `issuer` must equal the expected issuer exactly; `jwks_uri`
 * and every endpoint are pinned to the issuer's origin or an explicit allow-list. Providers borrow this
 * client; closing a provider never closes it.
 */
export class OIDCDiscoveryClient {
  readonly algorithms: readonly JWKSAlgorithm[]
  readonly allowLoopback: boolean
  readonly #issuers: ReadonlySet<string>
  readonly #jwksOrigins: readonly string[]
  readonly #endpointOrigins: readonly string[]
  readonly #documents: OutboundHttpClient
  readonly #keys: OutboundHttpClient
  readonly #policy: OutboundHttpPolicy
  readonly #fetch: OIDCFetch
  readonly #resolve: HostResolver

  constructor(options: OIDCDiscoveryClientOptions) {
    readOptions(options, 'OIDCDiscoveryClient', OPTIONS)
    if (options.allowedIssuers.length === 0) {
      throw new ConfigurationError('oidc.discovery.issuers_required', 'allowedIssuers must not be empty')
    }
    this.#issuers = new Set(options.allowedIssuers.map((issuer) => normalizeIssuer(issuer, 'allowed issuer')))
    this.#jwksOrigins = (options.allowedJwksOrigins ?? []).map((origin) => normalizeOrigin(origin))
    this.#endpointOrigins = (options.allowedEndpointOrigins ?? []).map((origin) => normalizeOrigin(origin))
    const algorithms = options.algorithms ?? JWKS_ALGORITHMS
    if (algorithms.length === 0 || !algorithms.every((alg) => isJWKSAlgorithm(alg))) {
      throw new ConfigurationError(
        'oidc.discovery.algorithms_invalid',
        'algorithms must be a non-empty list of EdDSA, ES256, RS256, PS256',
      )
    }
    this.algorithms = Object.freeze([...new Set(algorithms)])
    this.allowLoopback = options.allowLoopback === true
    this.#policy = {
      allowLoopback: this.allowLoopback,
      allowPrivateAddresses: options.allowPrivateAddresses === true,
      allowedPorts: new Set(options.allowedPorts ?? [443]),
      timeoutMs: options.timeoutMs ?? 5000,
      maxResponseBytes: options.maxDocumentBytes ?? 65_536,
    }
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init))
    this.#resolve = options.resolveHost ?? defaultHostResolver
    this.#documents = new OutboundHttpClient(this.#policy, this.#fetch, this.#resolve)
    this.#keys = new OutboundHttpClient(
      { ...this.#policy, maxResponseBytes: 1024 * 1024 },
      this.#fetch,
      this.#resolve,
    )
  }

  /** True when `issuer` (after normalization) is allow-listed. */
  allows(issuer: string): boolean {
    try {
      return this.#issuers.has(normalizeIssuer(issuer))
    } catch {
      return false
    }
  }

  /**
   * A policy-checked fetch for JWKS documents (public addresses, https, no redirects, 1 MiB): pass it to
   * `createFetchJWKSFetcher({ fetch })` so the shared `CachedJWKSProvider` obeys the same address policy.
   */
  readonly fetch: OIDCFetch = (url, init) => this.#keys.request(url, init)

  /**
   * A fresh HTTP client under the same address policy, for a provider (its own, closed with it), limited
   * to `origins`. Used by the provider factories.
   * @internal
   */
  createProviderHttpClient(
    origins: readonly string[],
    limits: { readonly timeoutMs?: number; readonly maxResponseBytes?: number } = {},
  ): OutboundHttpClient {
    return new OutboundHttpClient(
      {
        ...this.#policy,
        timeoutMs: limits.timeoutMs ?? this.#policy.timeoutMs,
        maxResponseBytes: limits.maxResponseBytes ?? 262_144,
        allowedOrigins: new Set(origins),
      },
      this.#fetch,
      this.#resolve,
    )
  }

  /** Fetches and validates the discovery document of an allow-listed issuer. */
  async discover(issuer: string, options: OIDCDiscoverOptions = {}): Promise<OIDCProviderMetadata> {
    if (this.#documents.closed) throw new OIDCError(OIDCErrorCodes.closed, 'the discovery client is closed')
    const normalized = normalizeIssuer(issuer)
    if (!this.#issuers.has(normalized)) {
      throw new ConfigurationError('oidc.discovery.issuer_not_allowed', 'the issuer is not allow-listed')
    }
    const issuerOrigin = new URL(normalized).origin
    const expected = {
      issuer: normalized,
      documentIssuer: options.documentIssuer ?? normalized,
      discoveryUrl: discoveryUrl(normalized),
      jwksOrigins: new Set([issuerOrigin, ...this.#jwksOrigins, ...origins(options.jwksOrigins)]),
      endpointOrigins: new Set([issuerOrigin, ...this.#endpointOrigins, ...origins(options.endpointOrigins)]),
      algorithms: new Set(this.algorithms),
    }
    const text = await this.#download(expected.discoveryUrl)
    let document: JsonValue
    try {
      document = parseStrictJson(text, MAX_JSON_DEPTH)
    } catch (error) {
      throw discoveryFailed('json', error)
    }
    const metadata = validateDiscoveryDocument(document, text, expected)
    await this.#checkHost(metadata.jwksUri)
    return metadata
  }

  async #download(url: string): Promise<string> {
    let response: Response
    try {
      response = await this.#documents.request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
      })
    } catch (error) {
      throw discoveryFailed(error instanceof OIDCError ? error.reason : 'network', error)
    }
    if (response.status !== 200) throw discoveryFailed(`status-${response.status}`)
    if (!JSON_MEDIA_TYPE.test(response.headers.get('content-type') ?? '')) {
      throw discoveryFailed('content-type')
    }
    try {
      // One leading byte order mark is dropped here (RFC 8259 §8.1); any other is malformed JSON.
      return new TextDecoder('utf-8', { fatal: true }).decode(await response.arrayBuffer())
    } catch (error) {
      throw discoveryFailed('encoding', error)
    }
  }

  async #checkHost(url: string): Promise<void> {
    try {
      await this.#documents.check(new URL(url))
    } catch (error) {
      if (error instanceof OIDCRequestError) throw discoveryFailed(`jwks-${error.reason}`, error)
      throw error
    }
  }

  /** Refuses new discoveries and JWKS fetches through `fetch`. Idempotent. */
  close(): void {
    this.#documents.close()
    this.#keys.close()
  }

  toJSON(): Record<string, unknown> {
    return { allowedIssuers: [...this.#issuers], allowLoopback: this.allowLoopback }
  }
}

function origins(list: readonly string[] | undefined): string[] {
  return (list ?? []).map((origin) => normalizeOrigin(origin))
}
