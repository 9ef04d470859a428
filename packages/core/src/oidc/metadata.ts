import { isJWKSAlgorithm, type JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { isJsonObject, type JsonValue } from '../jwks/strict-json.js'
import { discoveryFailed } from './errors.js'
import { pinnedEndpoint } from './issuer-url.js'

/** What discovery established about a provider, every URL pinned to an allowed origin. */
export interface OIDCProviderMetadata {
  /** The configured issuer (canonical spelling); the key the application allow-listed. */
  readonly issuer: string
  /** The document's `issuer` member: equal to `issuer`, or a template such as Entra's `{tenantid}`. */
  readonly documentIssuer: string
  readonly discoveryUrl: string
  readonly jwksUri: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly endSessionEndpoint?: string
  readonly revocationEndpoint?: string
  readonly pushedAuthorizationRequestEndpoint?: string
  /** RFC 9126: the provider refuses authorization requests that were not pushed. */
  readonly requirePushedAuthorizationRequests: boolean
  /** RFC 9207: callbacks must then carry `iss`, equal to the issuer. */
  readonly authorizationResponseIssParameterSupported: boolean
  /** Advertised ID-token algorithms intersected with the pinned ones; never empty. */
  readonly idTokenSigningAlgorithms: readonly JWKSAlgorithm[]
  readonly acrValuesSupported: readonly string[]
  /** Origins this provider's endpoints live on (the provider HTTP client may reach only these). */
  readonly endpointOrigins: readonly string[]
}

const documents = new WeakMap<OIDCProviderMetadata, string>()

/** The validated discovery document as received, for openid-client to process the very same bytes. */
export function discoveryDocumentOf(metadata: OIDCProviderMetadata): string | undefined {
  return documents.get(metadata)
}

export interface MetadataExpectations {
  readonly issuer: string
  readonly documentIssuer: string
  readonly discoveryUrl: string
  readonly jwksOrigins: ReadonlySet<string>
  readonly endpointOrigins: ReadonlySet<string>
  readonly algorithms: ReadonlySet<JWKSAlgorithm>
}

function stringList(value: JsonValue | undefined, member: string): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw discoveryFailed(`member-${member}`)
  }
  return value as string[]
}

function flag(value: JsonValue | undefined, member: string): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean') throw discoveryFailed(`member-${member}`)
  return value
}

/** Checks a parsed discovery document against the expectations; throws `oidc.discovery.failed`. */
export function validateDiscoveryDocument(
  document: JsonValue,
  text: string,
  expected: MetadataExpectations,
): OIDCProviderMetadata {
  if (!isJsonObject(document)) throw discoveryFailed('not-an-object')
  if (document.issuer !== expected.documentIssuer) throw discoveryFailed('issuer-mismatch')
  const jwksUri = pinnedEndpoint(document.jwks_uri, expected.jwksOrigins)
  if (jwksUri === undefined) throw discoveryFailed('jwks-uri-origin')
  const endpoint = (member: string, required: boolean): string | undefined => {
    const value = document[member]
    if (value === undefined && !required) return undefined
    const pinned = pinnedEndpoint(value, expected.endpointOrigins)
    if (pinned === undefined) throw discoveryFailed(`endpoint-origin-${member}`)
    return pinned
  }
  const authorizationEndpoint = endpoint('authorization_endpoint', true) as string
  const tokenEndpoint = endpoint('token_endpoint', true) as string
  const endSessionEndpoint = endpoint('end_session_endpoint', false)
  const revocationEndpoint = endpoint('revocation_endpoint', false)
  const parEndpoint = endpoint('pushed_authorization_request_endpoint', false)
  const advertised = stringList(document.id_token_signing_alg_values_supported, 'algorithms')
  if (advertised === undefined || advertised.length === 0) throw discoveryFailed('member-algorithms')
  const algorithms = advertised.filter(
    (alg): alg is JWKSAlgorithm => isJWKSAlgorithm(alg) && expected.algorithms.has(alg),
  )
  if (algorithms.length === 0) throw discoveryFailed('no-common-algorithm')
  const pkce = stringList(document.code_challenge_methods_supported, 'pkce')
  if (pkce !== undefined && !pkce.includes('S256')) throw discoveryFailed('pkce-s256-unsupported')
  const responseTypes = stringList(document.response_types_supported, 'response-types')
  if (responseTypes !== undefined && !responseTypes.includes('code')) throw discoveryFailed('no-code-flow')
  const requirePar = flag(document.require_pushed_authorization_requests, 'require-par')
  if (requirePar && parEndpoint === undefined) throw discoveryFailed('par-endpoint-missing')
  const origins = new Set(
    [authorizationEndpoint, tokenEndpoint, endSessionEndpoint, revocationEndpoint, parEndpoint]
      .filter((url): url is string => url !== undefined)
      .map((url) => new URL(url).origin),
  )
  const metadata: OIDCProviderMetadata = Object.freeze({
    issuer: expected.issuer,
    documentIssuer: expected.documentIssuer,
    discoveryUrl: expected.discoveryUrl,
    jwksUri,
    authorizationEndpoint,
    tokenEndpoint,
    ...(endSessionEndpoint === undefined ? {} : { endSessionEndpoint }),
    ...(revocationEndpoint === undefined ? {} : { revocationEndpoint }),
    ...(parEndpoint === undefined ? {} : { pushedAuthorizationRequestEndpoint: parEndpoint }),
    requirePushedAuthorizationRequests: requirePar,
    authorizationResponseIssParameterSupported: flag(
      document.authorization_response_iss_parameter_supported,
      'iss-parameter',
    ),
    idTokenSigningAlgorithms: Object.freeze([...new Set(algorithms)]),
    acrValuesSupported: Object.freeze(stringList(document.acr_values_supported, 'acr-values') ?? []),
    endpointOrigins: Object.freeze([...origins]),
  })
  documents.set(metadata, text)
  return metadata
}
