import type { Configuration } from 'oidc-provider'
import type { OidcProviderModule } from './oidc-provider-module.js'

/** The hosts an `http:` redirect URI may name: the loopback interface (RFC 8252 §7.3, §8.3). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost'])

const REFUSED =
  'every redirect URI must be https, or http on a loopback host (http://127.0.0.1, http://[::1], http://localhost)'

/** Whether a redirect URI is one the MCP authorization spec allows: https, or http on loopback. */
export function isAllowedRedirectUri(uri: unknown): boolean {
  const url = typeof uri === 'string' ? URL.parse(uri) : null
  if (url === null) return false
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)
}

/**
 * oidc-provider's `extraClientMetadata` holding the redirect URI rule for every client, whatever its
 * `application_type`: registrations, Client ID Metadata Documents and stored clients alike (the provider
 * runs the validator whenever it builds a client from metadata). The provider itself lets a `web` client
 * use `http` on any host, so an authorization code could travel in clear to a public host; here such a
 * client is refused with `invalid_redirect_uri`, as are private-use schemes.
 */
export function redirectUriPolicy(
  errors: OidcProviderModule['errors'],
): Configuration['extraClientMetadata'] {
  return {
    properties: ['redirect_uris'],
    validator(_ctx, key, value) {
      if (key !== 'redirect_uris' || !Array.isArray(value)) return
      if (value.every(isAllowedRedirectUri)) return
      throw Object.assign(new errors.InvalidRedirectUri(), { error_description: REFUSED })
    },
  }
}
