import type { Configuration } from 'oidc-provider'
import type { OidcProviderModule } from './oidc-provider-module.js'

/** The hosts an `http:` redirect URI may name: the loopback interface (RFC 8252 §7.3, §8.3). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost'])

const REFUSED_REDIRECT =
  'every redirect URI must be https, or http on a loopback host (http://127.0.0.1, http://[::1], http://localhost)'

/** Metadata naming an algorithm oidc-provider would key with a client secret when it is HMAC (`HS*`). */
const SIGNING = [
  'token_endpoint_auth_signing_alg',
  'request_object_signing_alg',
  'userinfo_signed_response_alg',
  'introspection_signed_response_alg',
  'authorization_signed_response_alg',
] as const

/** Encryption metadata: none of it is used (nothing is encrypted), and symmetric algorithms need a secret. */
const ENCRYPTION = [
  'id_token_encrypted_response_alg',
  'userinfo_encrypted_response_alg',
  'introspection_encrypted_response_alg',
  'authorization_encrypted_response_alg',
  'request_object_encryption_alg',
] as const

/** The listed private-use scheme of a redirect URI (`cursor` of `cursor://...`), if it has one. */
function privateUseScheme(uri: unknown, schemes: ReadonlySet<string>): string | undefined {
  const url = typeof uri === 'string' ? URL.parse(uri) : null
  const scheme = url?.protocol.slice(0, -1)
  return scheme !== undefined && schemes.has(scheme) ? scheme : undefined
}

/**
 * Whether a redirect URI is one the server allows: https, or http on loopback (the MCP authorization
 * spec), or, for a native client, a private-use scheme the application listed (RFC 8252 §7.1) with no
 * userinfo. oidc-provider matches such a URI exactly (only loopback http ignores the port).
 */
export function isAllowedRedirectUri(
  uri: unknown,
  applicationType: unknown = 'web',
  privateUseSchemes: ReadonlySet<string> = new Set(),
): boolean {
  const url = typeof uri === 'string' ? URL.parse(uri) : null
  if (url === null) return false
  if (url.protocol === 'https:') return true
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname)
  return (
    applicationType === 'native' &&
    privateUseScheme(uri, privateUseSchemes) !== undefined &&
    url.username === '' &&
    url.password === ''
  )
}

/**
 * Why the redirect URIs of a client are refused, or undefined when they are allowed. `application_type`
 * is the client's with the provider's defaults applied: `native` unless the client says `web`.
 */
function redirectRefusal(
  uris: readonly unknown[],
  applicationType: unknown,
  schemes: ReadonlySet<string>,
): string | undefined {
  if (uris.every((uri) => isAllowedRedirectUri(uri, applicationType, schemes))) return undefined
  if (applicationType !== 'native' && uris.some((uri) => privateUseScheme(uri, schemes) !== undefined)) {
    return 'private-use redirect URIs are for native clients only (application_type native)'
  }
  if (schemes.size === 0) return REFUSED_REDIRECT
  const listed = [...schemes].map((scheme) => `${scheme}:`).join(', ')
  return `${REFUSED_REDIRECT}; a native client may also use ${listed} (without userinfo)`
}

/**
 * oidc-provider's `extraClientMetadata`, holding two rules for every client whatever its
 * `application_type`: registrations, Client ID Metadata Documents and stored clients alike (the provider
 * runs the validator whenever it builds a client from metadata).
 * - Redirect URIs are https, or http on loopback: the provider itself lets a `web` client use `http` on
 *   any host (an authorization code would travel in clear to a public host) and a native client use any
 *   private-use scheme; such clients are refused with `invalid_redirect_uri`. A native client (never a
 *   web one) may use the private-use schemes the application listed (`clients.privateUseRedirectSchemes`).
 * - Clients are public: metadata that would make the provider issue a `client_secret` to a
 *   `token_endpoint_auth_method: none` client (an HMAC algorithm, any encryption) is refused with
 *   `invalid_client_metadata`; `clientAuthMethods: ['none']` refuses every other method.
 */
export function clientMetadataPolicy(
  errors: OidcProviderModule['errors'],
  privateUseSchemes: ReadonlySet<string> = new Set(),
): Configuration['extraClientMetadata'] {
  return {
    properties: ['redirect_uris', ...SIGNING, ...ENCRYPTION],
    validator(_ctx, key, value, metadata) {
      if (value === undefined || value === null) return
      if (key === 'redirect_uris') {
        if (!Array.isArray(value)) return
        const refusal = redirectRefusal(value, metadata.application_type, privateUseSchemes)
        if (refusal === undefined) return
        throw Object.assign(new errors.InvalidRedirectUri(), { error_description: refusal })
      }
      if ((ENCRYPTION as readonly string[]).includes(key)) {
        throw new errors.InvalidClientMetadata(`${key} is not supported: nothing is encrypted for clients`)
      }
      if (typeof value === 'string' && value.startsWith('HS')) {
        throw new errors.InvalidClientMetadata(`${key} must not be an HMAC algorithm: clients hold no secret`)
      }
    },
  }
}
