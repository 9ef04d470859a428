import { ConfigurationError } from '../errors/portcullis-error.js'

const MAX_URL_LENGTH = 2048

function refuse(what: string, rule: string): ConfigurationError {
  return new ConfigurationError('oidc.issuer_invalid', `${what} ${rule}`)
}

/**
 * The canonical spelling of an issuer identifier: scheme and host lower case, default port dropped, the
 * path exactly as written. `https://Accounts.Google.com:443` and `https://accounts.google.com` are the
 * same issuer; `https://accounts.google.com/` is not (issuers compare as exact strings, and some, like
 * Auth0's, end with a slash). Refused: userinfo, query, fragment, `.`/`..` or empty path segments, encoded
 * `/` or `\`, a trailing slash after a non-root path, non-http(s) schemes.
 */
export function normalizeIssuer(value: unknown, what = 'issuer'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URL_LENGTH) {
    throw refuse(what, `must be a URL of at most ${MAX_URL_LENGTH} characters`)
  }
  if (/[\s\\]/.test(value) || value.includes('?') || value.includes('#')) {
    throw refuse(what, 'must not contain whitespace, backslashes, a query or a fragment')
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw refuse(what, 'must be an absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(what, 'must use https')
  if (url.username !== '' || url.password !== '') throw refuse(what, 'must not contain userinfo')
  const schemeEnd = value.indexOf('//') + 2
  const pathStart = value.indexOf('/', schemeEnd)
  const rawPath = pathStart === -1 ? '' : value.slice(pathStart)
  if (rawPath !== '' && rawPath !== '/') {
    const segments = rawPath.slice(1).split('/')
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
      throw refuse(what, 'must not contain empty, "." or ".." path segments or a trailing slash')
    }
    if (/%2f|%5c|%2e/i.test(rawPath)) throw refuse(what, 'must not contain encoded "/", "\\" or "."')
  }
  const path = rawPath === '' || rawPath === '/' ? rawPath : url.pathname
  return `${url.protocol}//${url.host}${path}`
}

/** `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 section 4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.endsWith('/') ? issuer.slice(0, -1) : issuer}/.well-known/openid-configuration`
}

/** The canonical origin of an absolute http(s) URL written as an origin (`https://host[:port]`). */
export function normalizeOrigin(value: unknown, what = 'origin'): string {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) throw refuse(what, 'must be a string')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw refuse(what, 'must be an absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(what, 'must use https')
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search || url.hash) {
    throw refuse(what, 'must be an origin without userinfo, path, query or fragment')
  }
  return url.origin
}

/**
 * Parses an endpoint URL from a discovery document: absolute, no userinfo or fragment, and on one of
 * the allowed origins. Returns undefined when it is refused (the caller reports which member).
 */
export function pinnedEndpoint(value: unknown, origins: ReadonlySet<string>): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URL_LENGTH) return undefined
  if (/[\s\\]/.test(value)) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.username !== '' || url.password !== '' || value.includes('#')) return undefined
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  return origins.has(url.origin) ? url.href : undefined
}
