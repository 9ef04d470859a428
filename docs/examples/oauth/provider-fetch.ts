// oidc-provider 9 sends its outgoing requests (back-channel logout among them) through an SSRF guard
// that closes every connection to a loopback, private or other special-use address. A relying party on
// http://localhost or http://127.0.0.1 then never receives its logout token, and the provider only logs
// "hostname resolves to a special-use IP address". In development, give the Provider this `fetch`:
// loopback requests go without the guard, every other host keeps it.

/** What oidc-provider passes to its `fetch` option: a `RequestInit` with its guarded undici dispatcher. */
export type ProviderFetchOptions = RequestInit & { dispatcher?: unknown }

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

export function developmentProviderFetch(
  url: URL | string,
  options: ProviderFetchOptions,
): Promise<Response> {
  if (!LOOPBACK_HOSTS.has(new URL(url).hostname)) return fetch(url, options)
  const { dispatcher: _guarded, ...unguarded } = options
  return fetch(url, unguarded)
}

// Development only (never in production, where the guard is the point):
//   new Provider(issuer, { ...configuration, fetch: developmentProviderFetch })
