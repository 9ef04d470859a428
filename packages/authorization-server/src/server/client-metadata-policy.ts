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

/** Whether a redirect URI is one the MCP authorization spec allows: https, or http on loopback. */
export function isAllowedRedirectUri(uri: unknown): boolean {
  const url = typeof uri === 'string' ? URL.parse(uri) : null
  if (url === null) return false
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)
}

/**
 * oidc-provider's `extraClientMetadata`, holding two rules for every client whatever its
 * `application_type`: registrations, Client ID Metadata Documents and stored clients alike (the provider
 * runs the validator whenever it builds a client from metadata).
 * - Redirect URIs are https, or http on loopback: the provider itself lets a `web` client use `http` on
 *   any host (an authorization code would travel in clear to a public host) and a native client use any
 *   private-use scheme; such clients are refused with `invalid_redirect_uri`.
 * - Clients are public: metadata that would make the provider issue a `client_secret` to a
 *   `token_endpoint_auth_method: none` client (an HMAC algorithm, any encryption) is refused with
 *   `invalid_client_metadata`; `clientAuthMethods: ['none']` refuses every other method.
 */
export function clientMetadataPolicy(
  errors: OidcProviderModule['errors'],
): Configuration['extraClientMetadata'] {
  return {
    properties: ['redirect_uris', ...SIGNING, ...ENCRYPTION],
    validator(_ctx, key, value) {
      if (value === undefined || value === null) return
      if (key === 'redirect_uris') {
        if (!Array.isArray(value) || value.every(isAllowedRedirectUri)) return
        throw Object.assign(new errors.InvalidRedirectUri(), { error_description: REFUSED_REDIRECT })
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
